"""Writers racing garbage collection never lose a chunk a catalogued session references.

Writer threads keep making sessions out of old, unreferenced chunks (the same rows written
again: a put-if-absent that finds them writes nothing and leaves their age), forking
catalogued sessions and pruning records, while a collection with a short grace runs in a
loop. Afterwards every catalogued session loads, also after the trash has been emptied.
"""

from __future__ import annotations

import os
import random
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

from rath.session.chunk import ChunkKind, ChunkRow
from rath.session.table_ref import TableRef
from rath.store import Catalog, ChunkStore, SessionRecord
from rath.store.gc import GcReport, collect_garbage
from rath.store.objects import DirectoryStore, ObjectInfo

GRACE = timedelta(seconds=2)
RUN_FOR = 7.0  # long enough for trash copies to pass the grace and be emptied


class CountingStore(DirectoryStore):
    """A directory store that counts reads that had to look in the trash."""

    trash_reads = 0

    def get(self, key: str) -> bytes:
        if key.startswith("trash/"):
            type(self).trash_reads += 1
        return super().get(key)


def _row(text: str) -> ChunkRow:
    return ChunkRow(kind=ChunkKind.USER, payload={"content": text})


def _backdate(root: Path, seconds: float) -> None:
    stamp = time.time() - seconds
    for dirpath, _, names in os.walk(root):
        for name in names:
            os.utime(Path(dirpath) / name, (stamp, stamp))


def test_writers_racing_gc_lose_nothing(tmp_path: Path) -> None:
    objects = CountingStore(tmp_path)
    catalog = Catalog(objects)
    old_texts = [f"an old row {n}" for n in range(200)]
    seed = ChunkStore(objects)
    for text in old_texts:
        seed.put_row(_row(text))
    expected: dict[uuid.UUID, list[str]] = {}
    for _ in range(20):  # old sessions, catalogued: forks start from them
        texts = random.sample(old_texts, 3)
        sid = uuid.uuid4()
        catalog.put(SessionRecord(id=sid, root=seed.seal(TableRef.inline(*map(_row, texts)))))
        expected[sid] = texts
    _backdate(tmp_path, 3600)

    lock = threading.Lock()
    stop = threading.Event()
    failures: list[BaseException] = []

    def writer(seed_n: int) -> None:
        rng = random.Random(seed_n)
        store = ChunkStore(objects)
        n = 0
        try:
            while not stop.is_set():
                n += 1
                new = f"writer {seed_n} row {n}"
                choice = rng.random()
                with lock:
                    known = list(expected.items())
                if len(known) > 40:  # prune a session: its chunks become garbage again
                    sid = rng.choice(known)[0]
                    with lock:
                        expected.pop(sid, None)
                    catalog.delete(sid)
                    continue
                if choice < 0.3 and known:  # fork a catalogued session, O(1) by reference
                    parent, texts = rng.choice(known)
                    record = catalog.get(parent)
                    if record is None or record.root is None:
                        continue
                    root = store.seal(TableRef.sealed(record.root).append(_row(new)))
                    texts = [*texts, new]
                else:  # a new session re-using old rows, written again
                    texts = [*rng.sample(old_texts, 3), new]
                    root = store.seal(TableRef.inline(*map(_row, texts)))
                sid = uuid.uuid4()
                catalog.put(SessionRecord(id=sid, root=root))
                with lock:
                    expected[sid] = texts
        except BaseException as exc:
            failures.append(exc)

    reports: list[GcReport] = []

    def collector() -> None:
        try:
            while not stop.is_set():
                reports.append(collect_garbage(objects, grace=GRACE))
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(3)]
    threads.append(threading.Thread(target=collector))
    for thread in threads:
        thread.start()
    stop.wait(RUN_FOR)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    assert not failures, failures

    def check_all() -> None:
        reader = ChunkStore(objects)  # fresh caches: every row is read from the store
        for sid, texts in expected.items():
            record = catalog.get(sid)
            assert record is not None and record.root is not None
            rows = reader.load_rows(TableRef.sealed(record.root))
            assert [row.payload["content"] for row in rows] == texts

    check_all()
    # The race happened: collections moved chunks that sessions then used again.
    assert sum(r.trashed for r in reports) > 0
    assert sum(r.purged for r in reports) > 0
    assert sum(r.restored for r in reports) + CountingStore.trash_reads > 0
    # Empty the trash for good (twice: the second pass purges what the first trashed).
    _backdate(tmp_path, 3600)
    collect_garbage(objects, grace=GRACE)
    _backdate(tmp_path, 3600)
    collect_garbage(objects, grace=GRACE)
    check_all()


class RacingStore(DirectoryStore):
    """A store where a writer acts right after a collection has read the catalog."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.on_catalog_read: list[object] = []

    def list(self, prefix: str = "") -> Iterator[ObjectInfo]:
        yield from super().list(prefix)
        if prefix == "catalog/":
            while self.on_catalog_read:
                action = self.on_catalog_read.pop()
                assert callable(action)
                action()


def test_a_chunk_reused_between_mark_and_sweep_survives(tmp_path: Path) -> None:
    objects = RacingStore(tmp_path)
    writer = ChunkStore(objects)
    old = _row("an old row nobody references")
    writer.put_row(old)
    _backdate(tmp_path, 3600)
    new_session = uuid.uuid4()

    def reuse() -> None:
        # The old row is written again (put-if-absent: nothing written, its age unchanged)
        # into a new session whose record the collection has not seen.
        root = ChunkStore(objects).seal(TableRef.inline(old, _row("new")))
        Catalog(objects).put(SessionRecord(id=new_session, root=root))

    objects.on_catalog_read.append(reuse)
    report = collect_garbage(objects, grace=GRACE)

    assert report.trashed == 1  # the old row looked unreferenced, and was old
    record = Catalog(objects).get(new_session)
    assert record is not None and record.root is not None
    rows = ChunkStore(objects).load_rows(TableRef.sealed(record.root))
    assert [row.payload["content"] for row in rows] == [old.payload["content"], "new"]
