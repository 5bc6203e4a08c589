"""Garbage collection: what goes (to the trash, then for good), what stays, and dry runs."""

from __future__ import annotations

import os
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from s3_server import S3Server

from rath.backend.persistence.leases import LeaseRegistry
from rath.errors import GcRefusedError
from rath.session.chunk import ChunkKind, ChunkRow
from rath.session.table_ref import TableRef
from rath.store import Catalog, ChunkStore, SessionRecord
from rath.store._trash import trash_key
from rath.store.bucket_store import BucketStore
from rath.store.call_journal import CALLS_PREFIX, CallJournal, CallMade, call_key
from rath.store.chunk_store import object_key
from rath.store.gc import GcProgress, collect_garbage
from rath.store.objects import DirectoryStore

HOUR = 3600.0


def _row(text: str) -> ChunkRow:
    return ChunkRow(kind=ChunkKind.USER, payload={"content": text})


def _session(store: ChunkStore, *texts: str, base: TableRef | None = None) -> str:
    """Seal a table of ``texts`` (after ``base``) and return its node digest."""
    ref = (base or TableRef()).append(*(_row(t) for t in texts))
    return store.seal(ref)


def _age(store: DirectoryStore, key: str, seconds: float) -> None:
    path = store.root / key
    stamp = time.time() - seconds
    os.utime(path, (stamp, stamp))


def _age_all(store: DirectoryStore, seconds: float) -> None:
    for info in list(store.list()):
        _age(store, info.key, seconds)


def test_sweep_keeps_live_and_young_then_trash_then_purge(tmp_path: Path) -> None:
    objects = DirectoryStore(tmp_path)
    store = ChunkStore(objects)
    catalog = Catalog(objects)
    live_root = _session(store, "kept 1", "kept 2")
    catalog.put(SessionRecord(id=uuid.uuid4(), root=live_root, status="completed"))
    garbage = _session(store, "garbage")
    in_flight = _session(store, "a run in flight")
    LeaseRegistry(tmp_path / "sandboxes").acquire(uuid.uuid4(), "local", str(uuid.uuid4()))
    (tmp_path / "notes.txt").write_text("not a chunk")
    _age_all(objects, 2 * HOUR)
    young = store.put_bytes(b"just written")

    seen: list[GcProgress] = []
    report = collect_garbage(store, live_roots=[TableRef.sealed(in_flight)], progress=seen.append)

    assert report.objects == 8 and report.sessions == 1 and report.live_roots == 1
    assert report.live == 5  # two nodes and their three rows
    assert report.young == 1 and report.trashed == 2  # the garbage node and its row
    assert not objects.exists(object_key(garbage))
    assert objects.exists(trash_key(object_key(garbage)))
    assert objects.exists(object_key(young)) and objects.exists(object_key(in_flight))
    assert (tmp_path / "notes.txt").exists() and catalog.get(next(iter(catalog)).id)
    assert [p.phase for p in seen if p.done == p.total][-1] == "sweep"
    assert [
        row.payload["content"] for row in ChunkStore(objects).load_rows(TableRef.sealed(live_root))
    ] == ["kept 1", "kept 2"]

    # A second collection a grace later deletes the trash copies for good.
    for info in list(objects.list("trash/")):
        _age(objects, info.key, 2 * HOUR)
    again = collect_garbage(store)
    assert again.purged == 2 and again.trashed == 2  # the run is over: its chunks go now
    assert not objects.exists(trash_key(object_key(garbage)))


def test_dry_run_changes_nothing_and_counts_bytes(tmp_path: Path) -> None:
    objects = DirectoryStore(tmp_path)
    store = ChunkStore(objects)
    _session(store, "garbage")
    _age_all(objects, 2 * HOUR)
    before = sorted(info.key for info in objects.list())

    report = collect_garbage(store, dry_run=True)

    assert report.dry_run and report.trashed == 2
    assert report.trashed_bytes == sum(info.size for info in objects.list())
    assert sorted(info.key for info in objects.list()) == before


def test_a_read_puts_a_trashed_chunk_back(tmp_path: Path) -> None:
    objects = DirectoryStore(tmp_path)
    root = _session(ChunkStore(objects), "reused")
    _age_all(objects, 2 * HOUR)
    assert collect_garbage(objects).trashed == 2

    # A session that re-referenced the node while it was being collected can still read it.
    rows = ChunkStore(objects).load_rows(TableRef.sealed(root))

    assert [row.payload["content"] for row in rows] == ["reused"]
    assert objects.exists(object_key(root))


def test_a_referenced_trash_copy_is_restored_not_purged(tmp_path: Path) -> None:
    objects = DirectoryStore(tmp_path)
    root = _session(ChunkStore(objects), "late record")
    _age_all(objects, 2 * HOUR)
    collect_garbage(objects)
    for info in list(objects.list("trash/")):
        _age(objects, info.key, 2 * HOUR)
    # The session's record arrives after its chunks went to the trash (within the grace).
    Catalog(objects).put(SessionRecord(id=uuid.uuid4(), root=root))

    report = collect_garbage(objects)

    assert report.restored == 2 and report.purged == 0
    assert not list(objects.list("trash/"))
    assert len(ChunkStore(objects).load_rows(TableRef.sealed(root))) == 1


def test_an_unreadable_record_refuses_the_sweep(tmp_path: Path) -> None:
    objects = DirectoryStore(tmp_path)
    _session(ChunkStore(objects), "maybe someone's")
    objects.put(f"catalog/{uuid.uuid4()}.json", b"{not json")
    _age_all(objects, 2 * HOUR)

    with pytest.raises(GcRefusedError, match=r"cannot be read.*nothing was swept"):
        collect_garbage(objects)
    assert not list(objects.list("trash/"))


def test_history_hints_keep_what_they_name(tmp_path: Path) -> None:
    objects = DirectoryStore(tmp_path)
    root = _session(ChunkStore(objects), "named in a history")
    _age_all(objects, 2 * HOUR)

    report = collect_garbage(objects, hints=[root, "f" * 64])

    assert report.trashed == 0 and report.live == 2 and report.missing == ()


def test_stale_leases_go_live_and_fresh_ones_stay(tmp_path: Path) -> None:
    registry = LeaseRegistry(tmp_path / "sandboxes")
    stale, held, fresh = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    live_holder = str(uuid.uuid4())
    registry.acquire(stale, "local", str(uuid.uuid4()))
    registry.acquire(held, "local", live_holder)
    for sandbox in (stale, held):
        path = registry.root / f"{sandbox}.json"
        stamp = time.time() - 48 * HOUR
        os.utime(path, (stamp, stamp))
    registry.acquire(fresh, "local", str(uuid.uuid4()))

    dry = collect_garbage(
        DirectoryStore(tmp_path), leases=registry, dry_run=True, live_holders={live_holder}
    )
    assert [lease.sandbox_id for lease in dry.leases] == [stale]
    assert registry.get(stale) is not None

    report = collect_garbage(DirectoryStore(tmp_path), leases=registry, live_holders={live_holder})
    assert [lease.sandbox_id for lease in report.leases] == [stale]
    assert registry.get(stale) is None
    assert registry.get(held) is not None and registry.get(fresh) is not None


def test_collects_a_bucket_store(s3_env: S3Server) -> None:
    objects = BucketStore(f"s3://{s3_env.new_bucket()}", max_retries=2)
    store = ChunkStore(objects)
    kept = _session(store, "catalogued")
    Catalog(objects).put(SessionRecord(id=uuid.uuid4(), root=kept))
    gone = _session(store, "garbage")

    first = collect_garbage(objects, grace=timedelta(0))
    assert first.trashed == 2 and first.live == 2
    assert objects.exists(trash_key(object_key(gone))) and not objects.exists(object_key(gone))
    assert len(ChunkStore(objects).load_rows(TableRef.sealed(gone))) == 1  # restored on read

    second = collect_garbage(objects, grace=timedelta(0))
    assert second.restored == 0 and second.trashed == 2 and second.purged == 2
    third = collect_garbage(objects, grace=timedelta(0))
    assert third.purged == 2 and not list(objects.list("trash/"))
    assert len(ChunkStore(objects).load_rows(TableRef.sealed(kept))) == 1


def test_old_tool_call_records_of_finished_runs_go(tmp_path: Path) -> None:
    objects = DirectoryStore(tmp_path)
    journal = CallJournal(objects)
    in_flight = call_key("rath-agent/with a slash", "run-in-flight", "5")
    finished = call_key("rath-agent-done", "run-done", "5")
    for key in (in_flight, finished):
        journal.begin(key, attempt=1)
    # A reset run's call is keyed by its original run (finished): the record's run keeps it.
    reset = call_key("rath-agent-reset", "run-original", "5")
    journal.begin(reset, 1, CallMade(call="d#0", run="rath-agent-reset/run-reset"))
    objects.put(CALLS_PREFIX + "0" * 64, b"not a record")  # left alone, not a failure
    _age_all(objects, 2 * HOUR)
    young = call_key("rath-agent-done", "run-done", "7")
    journal.begin(young, attempt=1)
    runs = ["rath-agent/with a slash/run-in-flight", "rath-agent-reset/run-reset"]

    assert collect_garbage(objects, runs_in_flight=None).calls == 0  # the journal left alone
    dry = collect_garbage(objects, runs_in_flight=runs, dry_run=True)
    assert dry.calls == 1 and journal.get(finished) is not None
    report = collect_garbage(objects, runs_in_flight=runs)

    assert report.calls == 1
    assert journal.get(finished) is None
    assert journal.get(in_flight) is not None and journal.get(young) is not None
    assert journal.get(reset) is not None
    assert objects.exists(CALLS_PREFIX + "0" * 64)
