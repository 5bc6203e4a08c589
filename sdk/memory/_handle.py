"""``BackendMemoryStore``: a store a memory backend opened, with both faces.

OpenRath's face is ``dispatch(op)`` plus the reference count of :class:`MemoryStore`. Rath's
face (``remember``, ``recall``, ``get``, ``forget``, ``list``) is written once here in terms of
those ops, so every backend of the plane is also a Rath memory store.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from typing import Any, Protocol, Self

from rath.errors import MemoryStoreError
from rath.memory._store import DEFAULT_TOP_K, MemoryStore
from rath.memory._store_spec import MemoryStoreSpec
from rath.memory._uri import check_scope, check_segment, format_memory_uri
from rath.memory.errors import (
    InvalidMemoryError,
    MemoryNotFound,
    MemoryStoreClosed,
    MemoryURIError,
)
from rath.memory.op_types import MemoryOp, MemoryOpFind, MemoryOpRead, MemoryOpTree, MemoryOpWrite
from rath.memory.results import (
    MemoryExecutionFailure,
    MemoryFindResult,
    MemoryHit,
    MemoryListResult,
    MemoryReadResult,
    MemoryRecord,
    MemoryResult,
)
from rath.memory.spec import DEFAULT_CATEGORY, DEFAULT_SCOPE, RecallMode

__all__ = ["BackendMemoryStore", "raise_failure"]

_EPOCH = datetime.fromtimestamp(0, UTC)
_Records = list[MemoryRecord]
_Hits = list[MemoryHit]


class Owner(Protocol):
    """What a store needs of its backend."""

    @property
    def name(self) -> str: ...

    def close(self, store: BackendMemoryStore) -> None: ...

    def dispatch(self, store: BackendMemoryStore, op: MemoryOp) -> MemoryResult: ...

    def forget(self, store: BackendMemoryStore, uri: str) -> bool: ...


class BackendMemoryStore(MemoryStore):
    """An open store of a :class:`~rath.memory.abc.MemoryBackend`.

    Its records carry what the entries hold: the URI and the text. Backends keep no write
    time or session per entry, so ``created_at`` is the epoch and ``session_id`` ``None``.

    Attributes:
        backend: The backend that opened it.
        handle: Its id (a local store's directory; a random id for a remote one).
        spec: What it was opened with.
        state: The backend's own state for it (a client, a path).
        closed: Whether it was closed.
    """

    def __init__(
        self, backend: Owner, handle: str, spec: MemoryStoreSpec | None, state: Any
    ) -> None:
        self.backend = backend
        self.handle = handle
        self.spec = spec
        self.state = state
        self.closed = False

    def __repr__(self) -> str:
        status = "closed" if self.closed else f"refcount={self.refcount}"
        return f"BackendMemoryStore({self.backend.name!r}, {self.handle!r}, {status})"

    def acquire(self) -> Self:
        """Take one reference (+1); a store its backend closed cannot be taken.

        Raises:
            MemoryStoreClosed: The store is closed.
        """
        if self.closed:
            raise MemoryStoreClosed(self.handle)
        return super().acquire()

    def dispatch(self, op: MemoryOp) -> MemoryResult:
        """Run ``op`` on this store (see :meth:`~rath.memory.abc.MemoryBackend.dispatch`).

        Raises:
            MemoryStoreClosed: The store is closed (checked here too, as OpenRath's store did,
                for a backend that overrides ``dispatch``).
        """
        if self.closed:
            raise MemoryStoreClosed(self.handle)
        return self.backend.dispatch(self, op)

    def close(self) -> None:
        """Close the store through its backend (idempotent; the data stays)."""
        self.backend.close(self)

    def remember(
        self,
        content: str,
        scope: str = DEFAULT_SCOPE,
        category: str = DEFAULT_CATEGORY,
        *,
        key: str | None = None,
        session_id: str | None = None,
    ) -> MemoryRecord:
        """Write ``content`` at ``memory://<scope>/memories/<category>/<id>``.

        The id is ``key``, else a hash of the content with whitespace folded, so the same
        content (or key) lands on the same entry, and an entry already there is returned as
        it is: a retried write does not duplicate.
        """
        text = content.strip()
        if not text:
            raise InvalidMemoryError("cannot remember empty content")
        memory_id = key or hashlib.sha256(_fold(text).encode()).hexdigest()[:16]
        uri = format_memory_uri(scope, category, memory_id)
        existing = self.get(uri)
        if existing is not None:
            return existing
        _checked(self.dispatch(MemoryOpWrite(uri=uri, content=text, wait=True)), uri)
        return _record(uri, text)

    def recall(
        self,
        query: str,
        *,
        top_k: int = DEFAULT_TOP_K,
        scope: str | None = None,
        mode: RecallMode = "hybrid",
        category: str | None = None,
    ) -> _Hits:
        """The backend's ranking of entries for ``query``, positive scores only."""
        if top_k < 1:
            raise InvalidMemoryError(f"top_k must be at least 1, not {top_k}")
        target = _target(scope, category)
        op = MemoryOpFind(query=query, target_uri=target, top_k=top_k)
        found = _checked(self.dispatch(op), target)
        assert isinstance(found, MemoryFindResult)
        hits = []
        for hit in found.hits:
            record = self.get(hit.uri) if hit.score > 0 else None
            if record is not None:
                hits.append(MemoryHit(record=record, score=hit.score))
        return hits

    def get(self, uri: str) -> MemoryRecord | None:
        """The entry at ``uri`` as a record, or ``None``."""
        result = self.dispatch(MemoryOpRead(uri=uri))
        if isinstance(result, MemoryExecutionFailure) and result.kind == "not_found":
            return None
        read = _checked(result, uri)
        assert isinstance(read, MemoryReadResult)
        data = read.data if isinstance(read.data, str) else read.data.decode()
        return _record(uri, data)

    def forget(self, uri: str) -> bool:
        """Delete the entry at ``uri`` (where the backend can delete)."""
        return self.backend.forget(self, uri)

    def list(self, *, scope: str | None = None, category: str | None = None) -> _Records:
        """Every ``memories`` entry (of ``scope`` and ``category``), read whole."""
        scopes = [check_scope(scope)] if scope else ["user", "agent", "session", "resources"]
        records: _Records = []
        for name in scopes:
            root = f"memory://{name}/memories" + (f"/{category}" if category else "")
            listed = self.dispatch(MemoryOpTree(uri=root, depth=8))
            if isinstance(listed, MemoryExecutionFailure):
                continue
            assert isinstance(listed, MemoryListResult)
            for entry in listed.entries:
                record = None if entry.is_dir else self.get(entry.uri)
                if record is not None:
                    records.append(record)
        return records


def raise_failure(failure: MemoryExecutionFailure, uri: str | None = None) -> None:
    """Raise the Rath error a failure stands for (``uri``: what the failed op addressed)."""
    if failure.kind == "not_found":
        raise MemoryNotFound(uri or failure.detail or failure.message)
    if failure.kind == "invalid_uri":
        raise MemoryURIError(failure.message)
    raise MemoryStoreError(
        f"{failure.kind}: {failure.message}", retryable=failure.kind in ("transport", "timeout")
    )


def _checked(result: MemoryResult, uri: str | None) -> MemoryResult:
    if isinstance(result, MemoryExecutionFailure):
        raise_failure(result, uri)
    return result


def _target(scope: str | None, category: str | None) -> str | None:
    if scope is None:
        if category is not None:
            raise InvalidMemoryError("recall by category needs a scope as well")
        return None
    check_scope(scope)
    if category is None:
        return f"memory://{scope}"
    return f"memory://{scope}/memories/{check_segment('category', category)}"


def _record(uri: str, content: str) -> MemoryRecord:
    parts = uri.split("://", 1)[-1].split("/")
    scope = parts[0]
    category = parts[2] if len(parts) > 3 and parts[1] == "memories" else ""
    return MemoryRecord(uri=uri, content=content, scope=scope, category=category, created_at=_EPOCH)


def _fold(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()
