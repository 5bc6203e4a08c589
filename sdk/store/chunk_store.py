"""Content-addressed chunk storage: the bulk of transcripts, not history. See docs/modules.md."""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from rath.errors import StoreError
from rath.session.chunk import ChunkRow, canonical_json
from rath.session.table_ref import TableRef
from rath.store._trash import restore
from rath.store.objects import DirectoryStore, ObjectStore

T = TypeVar("T")

_NODE_CACHE_SIZE = 256
_ROW_CACHE_SIZE = 8192


def object_key(digest: str) -> str:
    """The object key of a content digest: ``ab/cdef...``."""
    return f"{digest[:2]}/{digest[2:]}"


class ChunkStore:
    """Content-addressed objects in an object store, with a small in-process read cache."""

    def __init__(self, objects: ObjectStore | Path) -> None:
        self.objects: ObjectStore = (
            objects if not isinstance(objects, str | Path) else DirectoryStore(Path(objects))
        )
        self._nodes: OrderedDict[str, tuple[str, ...]] = OrderedDict()
        self._rows: OrderedDict[str, ChunkRow] = OrderedDict()
        self._cache_lock = threading.Lock()  # activities use the store from worker threads

    def __repr__(self) -> str:
        return f"ChunkStore({self.objects.describe()!r})"

    async def run_io(self, work: Callable[..., T], *args: Any) -> T:
        """A call's small store work from async code, on a thread only when the store can block.

        A local directory's reads and small writes (a round's rows and node, mostly served by
        the cache) are a few system calls of microseconds each, less than a thread hop costs
        (its wake-ups hold the GIL), so they run inline; a remote object store's calls wait on
        the network and go to a thread. Bulk work (a whole table read or merged) keeps its
        thread: it could hold the event loop, and the heartbeats of every call on it, too long.
        """
        if isinstance(self.objects, DirectoryStore):
            return work(*args)
        return await asyncio.to_thread(work, *args)

    def put_bytes(self, data: bytes) -> str:
        """Store ``data`` and return its digest; storing the same bytes twice is a no-op."""
        digest = hashlib.sha256(data).hexdigest()
        self.objects.put(object_key(digest), data)
        return digest

    def get_bytes(self, digest: str) -> bytes:
        """Read the object named ``digest``, checking that its bytes still have that digest.

        Raises:
            StoreError: The object is missing or damaged (the message names the store).
        """
        where = self.objects.describe()
        key = object_key(digest)
        try:
            data = self.objects.get(key)
        except FileNotFoundError:
            # Garbage collection moved it to the trash while it was being referenced again:
            # put it back (see rath.store.gc for why this closes the race).
            restored = restore(self.objects, key)
            if restored is not None:
                return restored
            raise StoreError(
                f"chunk store object {digest[:16]}... is missing from {where!r}; "
                "clients and workers must share one store: on several hosts, set "
                "RATH_STORE_URL to the same object store (s3://bucket/prefix, gs://, az://) "
                "on every host, client and workers alike"
            ) from None
        if hashlib.sha256(data).hexdigest() != digest:
            raise StoreError(
                f"chunk store object {digest[:16]}... in {where!r} is damaged (its bytes no "
                "longer match their sha256); restore it from a backup of the store"
            )
        return data

    def put_row(self, row: ChunkRow) -> str:
        """Store one chunk row and return its digest (the row is cached: it is read back soon)."""
        digest = self.put_bytes(row.canonical_json())
        self._cache_row(digest, row)
        return digest

    def get_row(self, digest: str) -> ChunkRow:
        """Read one chunk row (rows are immutable, so recently read ones are cached)."""
        with self._cache_lock:
            row = self._rows.get(digest)
            if row is not None:
                self._rows.move_to_end(digest)
                return row
        row = ChunkRow.model_validate(json.loads(self.get_bytes(digest)))
        self._cache_row(digest, row)
        return row

    def _cache_row(self, digest: str, row: ChunkRow) -> None:
        with self._cache_lock:
            self._rows[digest] = row
            self._rows.move_to_end(digest)
            while len(self._rows) > _ROW_CACHE_SIZE:
                self._rows.popitem(last=False)

    def seal(self, ref: TableRef) -> str:
        """Store every inline row of ``ref`` and one node naming the whole table."""
        if len(ref.parts) == 1 and not ref.rows and isinstance(ref.parts[0], str):
            return ref.parts[0]
        parts = [part if isinstance(part, str) else self.seal(part) for part in ref.parts]
        rows = [row if isinstance(row, str) else self.put_row(row) for row in ref.rows]
        digest = self.put_bytes(canonical_json({"parts": parts, "rows": rows}))
        known = self._cached_rows(parts)
        if known is not None:  # the new node is read back next: remember its rows now
            self._remember(digest, (*known, *rows))
        return digest

    def row_digests(self, ref: TableRef) -> tuple[str, ...]:
        """The chunk digests of ``ref``'s rows, in order (stores inline rows it meets)."""
        out: list[str] = []
        for part in ref.parts:
            out.extend(self._node_rows(part) if isinstance(part, str) else self.row_digests(part))
        out.extend(row if isinstance(row, str) else self.put_row(row) for row in ref.rows)
        return tuple(out)

    def load_rows(self, ref: TableRef) -> tuple[ChunkRow, ...]:
        """Materialise ``ref`` into its rows."""
        inline = ref.inline_rows()
        if inline is not None:
            return inline
        parts: list[ChunkRow] = []
        for part in ref.parts:
            digests = self._node_rows(part) if isinstance(part, str) else self.row_digests(part)
            parts.extend(self.get_row(d) for d in digests)
        parts.extend(row if isinstance(row, ChunkRow) else self.get_row(row) for row in ref.rows)
        return tuple(parts)

    def _node_rows(self, digest: str) -> tuple[str, ...]:
        with self._cache_lock:
            cached = self._nodes.get(digest)
            if cached is not None:
                self._nodes.move_to_end(digest)
                return cached
        # Iterative expansion: a long session is a deep chain of nodes (one per round).
        resolved: dict[str, tuple[str, ...]] = {}
        stack: list[str] = [digest]
        while stack:
            current = stack[-1]
            if current in resolved:
                stack.pop()
                continue
            node = self._read_node(current)
            pending: list[str] = []
            for part in node["parts"]:
                if part in resolved:
                    continue
                with self._cache_lock:
                    known = self._nodes.get(part)
                if known is not None:
                    resolved[part] = known
                else:
                    pending.append(part)
            if pending:
                stack.extend(pending)
                continue
            rows: list[str] = []
            for part in node["parts"]:
                rows.extend(resolved[part])
            rows.extend(node["rows"])
            resolved[current] = tuple(rows)
            self._remember(current, resolved[current])
            stack.pop()
        return resolved[digest]

    def _read_node(self, digest: str) -> dict[str, Any]:
        node = json.loads(self.get_bytes(digest))
        if not isinstance(node, dict) or "parts" not in node or "rows" not in node:
            raise StoreError(f"chunk store object {digest[:16]}... is not a table node")
        return node

    def _cached_rows(self, parts: list[str]) -> tuple[str, ...] | None:
        """The row digests of ``parts`` when every one of them is cached, else None."""
        out: list[str] = []
        with self._cache_lock:
            for part in parts:
                rows = self._nodes.get(part)
                if rows is None:
                    return None
                out.extend(rows)
        return tuple(out)

    def _remember(self, digest: str, rows: tuple[str, ...]) -> None:
        with self._cache_lock:
            self._nodes[digest] = rows
            while len(self._nodes) > _NODE_CACHE_SIZE:
                self._nodes.popitem(last=False)
