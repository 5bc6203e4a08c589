"""``rath sessions gc`` as a user runs it: the real CLI in a subprocess, on the embedded server."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

from temporalio.client import Client

from rath.session.chunk import ChunkKind, ChunkRow
from rath.session.table_ref import TableRef
from rath.store import Catalog, ChunkStore, SessionRecord
from rath.store._trash import trash_key
from rath.store.call_journal import CallJournal, call_key
from rath.store.chunk_store import object_key
from rath.store.objects import DirectoryStore


def _rath(home: Path, store: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "RATH_HOME": str(home), "RATH_STORE_DIR": str(store), **env}
    return subprocess.run(
        [str(Path(sys.executable).parent / "rath"), "sessions", "gc", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=environ,
        check=False,
    )


def _seal(store: ChunkStore, text: str) -> str:
    return store.seal(TableRef.inline(ChunkRow(kind=ChunkKind.USER, payload={"content": text})))


def _age(root: Path) -> None:
    stamp = time.time() - 7200
    for dirpath, _, names in os.walk(root):
        for name in names:
            os.utime(Path(dirpath) / name, (stamp, stamp))


async def test_gc_dry_run_then_sweep_keeps_catalogued_and_running(
    rath_home: Path, client: Client, tmp_path: Path
) -> None:
    store = tmp_path / "store"
    objects = DirectoryStore(store)
    chunks = ChunkStore(objects)
    kept = _seal(chunks, "catalogued")
    Catalog(objects).put(SessionRecord(id=uuid.uuid4(), root=kept))
    running = _seal(chunks, "in a run in flight")
    garbage = _seal(chunks, "garbage")
    # A run in flight whose history names its node (no worker serves its queue: it waits).
    handle = await client.start_workflow(
        "rath.SessionLoop",
        {"session": {"table": {"parts": [running]}}},
        id=f"gc-test-{uuid.uuid4().hex[:8]}",
        task_queue=f"nobody-{uuid.uuid4().hex[:8]}",
    )
    # Tool-call journal records: one of that run (it may still retry), one of a finished run.
    journal = CallJournal(objects)
    in_flight_call = call_key(handle.id, handle.result_run_id or "", "3")
    finished_call = call_key("rath-agent-done", str(uuid.uuid4()), "3")
    for key in (in_flight_call, finished_call):
        journal.begin(key, attempt=1)
    _age(store)
    try:
        dry = await asyncio.to_thread(_rath, rath_home, store, "--dry-run")
        assert dry.returncode == 0, dry.stderr
        assert "2 chunks (" in dry.stdout and "would be moved to the trash" in dry.stdout
        assert "tool-call journal: 1 records of finished runs would be removed" in dry.stdout
        assert "dry run, nothing changed" in dry.stdout
        assert objects.exists(object_key(garbage)) and journal.get(finished_call) is not None

        done = await asyncio.to_thread(_rath, rath_home, store, "--json", "--grace", "30m")
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert handle.id in report["runs_in_flight"]
        assert (report["live"], report["trashed"], report["sessions"]) == (4, 2, 1)
        assert not objects.exists(object_key(garbage))
        assert objects.exists(trash_key(object_key(garbage)))
        assert objects.exists(object_key(running)) and objects.exists(object_key(kept))
        assert report["calls"] == 1
        assert journal.get(finished_call) is None and journal.get(in_flight_call) is not None
    finally:
        await handle.terminate("test over")


def test_gc_refuses_to_sweep_without_temporal(rath_home: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    garbage = _seal(ChunkStore(store), "garbage")
    _age(store)
    with socket.socket() as sock:  # a loopback port nothing listens on
        sock.bind(("127.0.0.1", 0))
        nowhere = f"127.0.0.1:{sock.getsockname()[1]}"

    refused = _rath(rath_home, store, "--timeout", "5", TEMPORAL_ADDRESS=nowhere)
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "TEMPORAL_ADDRESS" in refused.stderr
    assert "nothing was swept" in refused.stderr
    assert (store / object_key(garbage)).exists()

    dry = _rath(rath_home, store, "--dry-run", "--timeout", "5", TEMPORAL_ADDRESS=nowhere)
    assert dry.returncode == 0 and "warning" in dry.stderr
    assert "runs in flight: unknown" in dry.stdout and "2 chunks" in dry.stdout


def test_gc_rejects_a_bad_duration(rath_home: Path, tmp_path: Path) -> None:
    bad = _rath(rath_home, tmp_path, "--grace", "soon")
    assert bad.returncode == 2 and "90s, 30m, 1h" in bad.stderr
