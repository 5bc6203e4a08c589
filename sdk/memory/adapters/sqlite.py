"""Rath's SQLite memory as a plane backend (``"sqlite"``) and its store, ``LocalMemoryStore``.

See docs/memory.md (the local store, its ranking and its file layout).
"""

from __future__ import annotations

from pathlib import Path

from rath.llm.embedding import Embedder
from rath.memory.abc import (
    DEFAULT_CATEGORY,
    DEFAULT_SCOPE,
    DEFAULT_TOP_K,
    MemoryBackend,
    MemoryCapabilities,
    MemoryStore,
    MemoryStoreSpec,
    ScopeModel,
)
from rath.memory.adapters._sqlite_db import SqliteMemoryDB
from rath.memory.adapters.embedders import build_embedder, embedding_spec
from rath.memory.describe import memory_dir
from rath.memory.errors import MemoryURIError
from rath.memory.op_types import (
    MemoryOp,
    MemoryOpFind,
    MemoryOpList,
    MemoryOpRead,
    MemoryOpSearch,
    MemoryOpTree,
    MemoryOpWrite,
    RecallMode,
)
from rath.memory.registry import get, register
from rath.memory.results import (
    MemoryEntry,
    MemoryExecutionFailure,
    MemoryFindResult,
    MemoryHits,
    MemoryListResult,
    MemoryReadResult,
    MemoryRecord,
    MemoryResult,
    MemoryWriteResult,
)
from rath.memory.spec import MemorySpec
from rath.memory.uri import MemoryURI, parse_memory_prefix

__all__ = ["LocalMemoryStore", "SqliteMemoryBackend"]

_Records = list[MemoryRecord]


@register("sqlite")
class SqliteMemoryBackend(MemoryBackend):
    """Stores in SQLite files: ``options["path"]`` (default ``<RATH_HOME>/memory/memory.db``)."""

    @classmethod
    def capabilities(cls) -> MemoryCapabilities:
        """Write, read, list and lexical, embedding or hybrid find."""
        return MemoryCapabilities(scope_model=ScopeModel.HYBRID, supports_vector_search=True)

    def open(self, spec: MemoryStoreSpec | None = None) -> LocalMemoryStore:
        """Open the database ``options["path"]`` names (embedder or its spec, threshold too)."""
        options = dict((spec.options if spec else None) or {})
        embedding = options.get("embedding")
        return LocalMemoryStore(
            options.get("path") or memory_dir() / "memory.db",
            embedder=build_embedder(embedding) if embedding else options.get("embedder"),
            min_similarity=float(options.get("min_similarity", 0.0)),
            backend=self,
        )

    def _close(self, store: MemoryStore) -> None:
        _db(store).close()

    def _dispatch(self, store: MemoryStore, op: MemoryOp) -> MemoryResult:
        try:
            return _run(_db(store), op)
        except MemoryURIError as exc:
            return MemoryExecutionFailure("invalid_uri", str(exc))

    def forget(self, store: MemoryStore, uri: str) -> bool:
        """Delete the entry at ``uri`` (and its vectors); whether there was one."""
        return _db(store).forget(uri)

    def describe(self, store: MemoryStore) -> MemorySpec:
        """The spec a worker opens this store from: its file, embedder and threshold."""
        db = _db(store)
        embedding = embedding_spec(db.embedder) if db.embedder is not None else None
        return MemorySpec(path=str(db.path), embedding=embedding, min_similarity=db.min_similarity)


class LocalMemoryStore(MemoryStore):
    """A SQLite memory store: Rath's constructor for the ``"sqlite"`` backend's stores.

    Example::

        with LocalMemoryStore("~/.rath/memory/memory.db") as store:
            store.remember("The user prefers dark mode.", "user", "preferences")
            hits = store.recall("dark or light theme?")

    Args:
        path: The database file (its directory is created). Several stores, in this process
            or others, may open the same file at once.
        embedder: Enables embedding and hybrid recall; without one, recall is lexical.
        min_similarity: Embedding matches at or below this cosine similarity are dropped.
        busy_timeout: How long a write waits for another process's write lock, in seconds.
        backend: The backend instance that owns it (default: the registered ``"sqlite"``).

    Raises:
        MemoryStoreError: The file cannot be opened as a memory database.
    """

    def __init__(
        self,
        path: Path | str,
        *,
        embedder: Embedder | None = None,
        min_similarity: float = 0.0,
        busy_timeout: float = 30.0,
        backend: SqliteMemoryBackend | None = None,
    ) -> None:
        db = SqliteMemoryDB(
            path, embedder=embedder, min_similarity=min_similarity, busy_timeout=busy_timeout
        )
        owner = backend or get("sqlite")
        spec = MemoryStoreSpec(options={"path": str(db.path), "min_similarity": min_similarity})
        # Not kept in the backend's table (store_count): an unclosed store is freed, and its
        # file closed, with its last reference, as before the plane.
        super().__init__(owner, str(db.path), spec, db)

    def __repr__(self) -> str:
        extra = f", embedder={self.embedder!r}" if self.embedder is not None else ""
        return f"LocalMemoryStore({self.handle!r}{extra})"

    @property
    def path(self) -> Path:
        """The database file."""
        return _db(self).path

    @property
    def embedder(self) -> Embedder | None:
        """The embedder of embedding and hybrid recall, if any."""
        return _db(self).embedder

    @property
    def min_similarity(self) -> float:
        """Embedding matches at or below this cosine similarity are dropped."""
        return _db(self).min_similarity

    def remember(
        self,
        content: str,
        scope: str = DEFAULT_SCOPE,
        category: str = DEFAULT_CATEGORY,
        *,
        key: str | None = None,
        session_id: str | None = None,
    ) -> MemoryRecord:
        """Store ``content`` (see :meth:`MemoryStore.remember`), keeping its time and session.

        With an embedder the content is embedded before the row is written, so a failing
        embedder fails the call (retryably) and leaves nothing half-written.
        """
        return _db(self).remember(content, scope, category, key=key, session_id=session_id)

    def recall(
        self,
        query: str,
        *,
        top_k: int = DEFAULT_TOP_K,
        scope: str | None = None,
        mode: RecallMode = "hybrid",
        category: str | None = None,
    ) -> MemoryHits:
        """Rank memories against ``query`` (see docs/memory.md, "Ranking").

        ``lexical`` ranks by BM25, ``embedding`` by cosine similarity above
        ``min_similarity``, ``hybrid`` fuses both by reciprocal rank (lexical alone without
        an embedder). A query with no letters or digits returns no hits.
        """
        db = _db(self)
        return MemoryHits(db.recall(query, top_k=top_k, scope=scope, mode=mode, category=category))

    def get(self, uri: str) -> MemoryRecord | None:
        """The record at ``uri`` (with its write time and session), or ``None``."""
        return _db(self).get(uri)

    def list(self, *, scope: str | None = None, category: str | None = None) -> _Records:
        """The stored records, oldest first, optionally of one scope and category."""
        return _db(self).list(scope=scope, category=category)


def _db(store: MemoryStore) -> SqliteMemoryDB:
    db = store.state
    assert isinstance(db, SqliteMemoryDB)
    return db


def _run(db: SqliteMemoryDB, op: MemoryOp) -> MemoryResult:
    if isinstance(op, MemoryOpWrite):
        uri = MemoryURI.parse(op.uri)
        meta = dict(op.metadata or {})
        record = db.remember(
            op.content,
            uri.scope,
            uri.category,
            key=meta.get("key") or uri.id,
            session_id=meta.get("session_id"),
            uri=op.uri,
        )
        return MemoryWriteResult(uri=record.uri, bytes_written=len(record.content.encode()))
    if isinstance(op, MemoryOpRead):
        found = db.get(op.uri)
        if found is None:
            return MemoryExecutionFailure("not_found", f"no memory at {op.uri}", op.uri)
        data = found.content.encode() if op.encoding is None else found.content
        return MemoryReadResult(uri=found.uri, data=data, level=op.level)
    if isinstance(op, MemoryOpList | MemoryOpTree):
        scope, category = parse_memory_prefix(op.uri)
        entries = (
            MemoryEntry(name=r.uri.rsplit("/", 1)[-1], uri=r.uri, is_dir=False, size=len(r.content))
            for r in db.list(scope=scope, category=category)
        )
        return MemoryListResult(tuple(entries))
    assert isinstance(op, MemoryOpFind | MemoryOpSearch)
    where = parse_memory_prefix(op.target_uri) if op.target_uri else (None, None)
    mode = (op.mode if isinstance(op, MemoryOpFind) else None) or "hybrid"
    hits = db.recall(op.query, top_k=op.top_k, scope=where[0], category=where[1], mode=mode)
    return MemoryFindResult(tuple(hits))
