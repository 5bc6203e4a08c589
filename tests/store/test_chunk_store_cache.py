"""What a process wrote it does not read back: a round's rows and node stay in its cache."""

from __future__ import annotations

from pathlib import Path

from rath.session import ChunkKind, ChunkRow, TableRef
from rath.store import ChunkStore
from rath.store.objects import DirectoryStore


class CountingStore(DirectoryStore):
    """A directory store that counts reads."""

    reads = 0

    def get(self, key: str) -> bytes:
        self.reads += 1
        return super().get(key)


def _row(text: str) -> ChunkRow:
    return ChunkRow(kind=ChunkKind.USER, payload={"content": text})


def test_rows_and_nodes_written_are_read_back_from_the_cache(tmp_path: Path) -> None:
    objects = CountingStore(tmp_path)
    store = ChunkStore(objects)
    table = TableRef.inline(_row("one"))
    for i in range(5):  # a round: seal what the run has, then add a stored row
        sealed = TableRef.sealed(store.seal(table))
        table = TableRef(parts=sealed.parts, rows=(store.put_row(_row(f"round {i}")),))
    rows = store.load_rows(TableRef.sealed(store.seal(table)))
    assert [r.payload["content"] for r in rows] == ["one", *(f"round {i}" for i in range(5))]
    assert objects.reads == 0

    cold = ChunkStore(objects)  # another process reads everything from the store
    assert cold.load_rows(TableRef.sealed(store.seal(table))) == rows
    assert objects.reads > 0
