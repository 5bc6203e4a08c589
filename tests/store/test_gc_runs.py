"""Garbage collection in a loop beside real runs: every catalogued session still loads.

Runs of a scripted fake model on the embedded server make sessions concurrently; each
finished one is catalogued (this test writes the record, root = the sealed node of the run's
output, as the catalog writer does when a run ends), some are pruned again, and a collection
with the default grace and the runs in flight from Temporal runs in a loop throughout. Between
batches every object in the store is made two hours older (time passing, quickly), so the
next batch re-uses old chunks (each run writes the same system-prompt row again) while they
are being collected, and trash copies pass the grace and are deleted.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import FAST, fake_provider

from rath import flow
from rath.runtime.live_runs import live_runs
from rath.runtime.runtime import shutdown_runtime
from rath.session import Session
from rath.session.table_ref import TableRef
from rath.settings import Settings
from rath.store import Catalog, SessionRecord, store_for
from rath.store.chunk_store import ChunkStore
from rath.store.gc import GcReport, collect_garbage
from rath.testing import FakeChatServer, text_reply

BATCHES = 6
PER_BATCH = 3


@pytest.fixture
def own_store(
    server_address: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Settings]:
    """Embedded settings with a store of this test's own (collections here sweep it)."""
    monkeypatch.setenv("RATH_TASK_QUEUE", f"test-{uuid.uuid4().hex[:10]}")
    monkeypatch.setenv("RATH_STORE_DIR", str(tmp_path / "store"))
    settings = Settings.from_env()
    yield settings
    shutdown_runtime(settings)


def _age(root: Path, seconds: float) -> None:
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = Path(dirpath) / name
            try:
                stamp = path.stat().st_mtime - seconds
                os.utime(path, (stamp, stamp))
            except FileNotFoundError:  # moved by the collection meanwhile
                continue


def test_runs_and_gc_in_a_loop_lose_no_catalogued_session(own_store: Settings) -> None:
    rath_env = own_store
    store = store_for(rath_env)
    catalog = Catalog(store.objects)
    stop = threading.Event()
    collected = threading.Condition()
    reports: list[GcReport] = []
    failures: list[BaseException] = []

    def collector() -> None:
        try:
            while not stop.is_set():
                runs = live_runs(rath_env, timeout=30)
                report = collect_garbage(store, hints=runs.digests)
                with collected:
                    reports.append(report)
                    collected.notify_all()
        except BaseException as exc:
            with collected:
                failures.append(exc)
                collected.notify_all()

    gc = threading.Thread(target=collector)
    gc.start()
    expected: dict[uuid.UUID, list[str]] = {}
    replies = [text_reply(f"answer {n}") for n in range(BATCHES * PER_BATCH)]
    try:
        with FakeChatServer(replies) as server:
            agent = flow.Agent("Answer briefly.", provider=fake_provider(server), options=FAST)
            for batch in range(BATCHES):
                outs = [
                    agent(Session.from_user_message(f"question {batch}.{n}"))
                    for n in range(PER_BATCH)
                ]
                for out in outs:
                    rows = [str(row.payload.get("content")) for row in out.chunk_table.rows]
                    root = store.seal(out.table)
                    catalog.put(SessionRecord(id=out.id, root=root, status="completed"))
                    expected[out.id] = rows
                if batch % 2 == 1:  # prune the oldest: their chunks become garbage
                    for sid in list(expected)[:PER_BATCH]:
                        catalog.delete(sid)
                        del expected[sid]
                _age(rath_env.store_dir, 2 * 3600)
                with collected:  # at least one whole collection after the ageing
                    target = len(reports) + 2
                    collected.wait_for(lambda: len(reports) >= target or failures, timeout=60)  # noqa: B023
    finally:
        stop.set()
        gc.join(timeout=120)
    assert not gc.is_alive()
    assert not failures, failures
    assert sum(r.trashed for r in reports) > 0 and sum(r.purged for r in reports) > 0

    reader = ChunkStore(store.objects)  # fresh caches: rows come from the store (or its trash)
    for sid, rows in expected.items():
        record = catalog.get(sid)
        assert record is not None and record.root is not None
        loaded = reader.load_rows(TableRef.sealed(record.root))
        assert [str(row.payload.get("content")) for row in loaded] == rows
