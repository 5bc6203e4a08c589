"""Rath's SQLite memory: the ``"sqlite"`` plane backend and its store, ``LocalMemoryStore``.

Layout, ranking and concurrency: docs/memory.md, "LocalMemoryStore: SQLite".
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from rath.errors import MemoryStoreError
from rath.llm.embedding import Embedder
from rath.memory import op_types as ops
from rath.memory import results as res
from rath.memory.abc import Key, MemoryBackend, MemoryStore, MemoryStoreSpec, Where
from rath.memory.adapters._sqlite_rank import fuse, informative, lexical_ranking, match_expression
from rath.memory.adapters.embedders import build_embedder, embedding_spec
from rath.memory.capabilities import MemoryCapabilities, ScopeModel
from rath.memory.describe import memory_dir
from rath.memory.errors import InvalidMemoryError, MemoryURIError
from rath.memory.registry import get, register
from rath.memory.results import MemoryHit, MemoryRecord
from rath.memory.spec import EmbeddingSpec, MemorySpec
from rath.memory.uri import (
    MemoryURI,
    check_scope,
    check_segment,
    format_memory_uri,
    parse_memory_prefix,
)
from rath.utils.text import words
from rath.utils.vectors import dot, normalized, pack, unpack

__all__ = ["LocalMemoryStore", "SqliteMemoryBackend"]

SCHEMA_VERSION = 1
TOKENIZER = "porter unicode61 remove_diacritics 2"
_RECALL_MODES = ("hybrid", "lexical", "embedding")
_MIN_CANDIDATES = 20
_CANDIDATE_FACTOR = 4
_BACKFILL_BATCH = 64

_SCHEMA = f"""
BEGIN IMMEDIATE;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', '{SCHEMA_VERSION}');
CREATE TABLE IF NOT EXISTS memories (
    id INTEGER PRIMARY KEY AUTOINCREMENT, uri TEXT NOT NULL UNIQUE, scope TEXT NOT NULL,
    category TEXT NOT NULL, content TEXT NOT NULL, content_digest TEXT NOT NULL,
    idempotency_key TEXT UNIQUE, session_id TEXT, created_at TEXT NOT NULL,
    UNIQUE (scope, content_digest)
);
CREATE TABLE IF NOT EXISTS vectors (
    memory_id INTEGER NOT NULL, model TEXT NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (memory_id, model)
);
CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts
    USING fts5(content, content='memories', content_rowid='id', tokenize='{TOKENIZER}');
CREATE TRIGGER IF NOT EXISTS memories_after_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER IF NOT EXISTS memories_after_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.id, old.content);
    DELETE FROM vectors WHERE memory_id = old.id;
END;
COMMIT;
"""

_COLUMNS = "id, uri, scope, category, content, session_id, created_at"
_Row = tuple[int, str, str, str, str, str | None, str]
# Module-level aliases: inside the class body, `list` names the method.
_Records = list[MemoryRecord]
_Hits = list[MemoryHit]
_Vectors = list[list[float]]
_Ranking = list[tuple[int, float]]


@register("sqlite")
class SqliteMemoryBackend(MemoryBackend):
    """Stores in SQLite files: ``options["path"]`` (default ``<RATH_HOME>/memory/memory.db``)."""

    @classmethod
    def capabilities(cls) -> MemoryCapabilities:
        """Write, read, list and lexical, embedding or hybrid find."""
        return MemoryCapabilities(scope_model=ScopeModel.HYBRID, supports_vector_search=True)

    def open(self, spec: MemoryStoreSpec | None = None) -> LocalMemoryStore:
        """Open ``options["path"]`` with ``embedder`` (or its spec) and ``min_similarity``."""
        options = dict((spec.options if spec else None) or {})
        embedder = options.get("embedder")
        return LocalMemoryStore(
            options.get("path") or memory_dir() / "memory.db",
            embedder=build_embedder(embedder) if isinstance(embedder, EmbeddingSpec) else embedder,
            min_similarity=float(options.get("min_similarity", 0.0)),
            backend=self,
        )

    def _close(self, store: MemoryStore) -> None:
        _local(store)._disconnect()

    def _dispatch(self, store: MemoryStore, op: ops.MemoryOp) -> res.MemoryResult:
        try:
            return _run(_local(store), op)
        except MemoryURIError as exc:
            return res.MemoryExecutionFailure("invalid_uri", str(exc))

    def forget(self, store: MemoryStore, uri: str) -> bool:
        """Delete the entry at ``uri`` (and its vectors); whether there was one."""
        return _local(store).forget(uri)

    def describe(self, store: MemoryStore) -> MemorySpec:
        """The spec a worker opens this store from: its file, embedder and threshold."""
        local = _local(store)
        embedding = embedding_spec(local.embedder) if local.embedder is not None else None
        return MemorySpec(
            path=str(local.path), embedding=embedding, min_similarity=local.min_similarity
        )


class LocalMemoryStore(MemoryStore):
    """A SQLite memory store, kept across processes and restarts (the ``"sqlite"`` backend's).

    Several stores, in this process or others, may open the same ``path`` at once. An
    ``embedder`` enables embedding and hybrid recall; embedding matches at or below
    ``min_similarity`` are dropped; a write waits ``busy_timeout`` seconds for another
    process's lock. Raises ``MemoryStoreError`` when the file is no memory database.
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
        self.path = Path(path).expanduser()
        self.embedder = embedder
        self.min_similarity = min_similarity
        self._busy_timeout = busy_timeout
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = self._connect()
        spec = MemoryStoreSpec(options={"path": str(self.path), "min_similarity": min_similarity})
        # Not kept in the backend's table (store_count): an unclosed store is freed, and its
        # file closed, with its last reference, as before the plane.
        super().__init__(backend or get("sqlite"), str(self.path), spec)

    def __repr__(self) -> str:
        extra = f", embedder={self.embedder!r}" if self.embedder is not None else ""
        return f"LocalMemoryStore({self.handle!r}{extra})"

    def get(self, uri: str) -> MemoryRecord | None:
        """The record at ``uri`` (with its write time and session), or ``None``."""
        with self._reading() as db:
            row = db.execute(
                f"SELECT {_COLUMNS} FROM memories WHERE uri = ?", (str(MemoryURI.parse(uri)),)
            ).fetchone()
        return None if row is None else _record(row)

    def forget(self, uri: str) -> bool:
        """Delete the record at ``uri`` (and its vectors); whether there was one."""
        with self._writing() as db:
            cursor = db.execute("DELETE FROM memories WHERE uri = ?", (str(MemoryURI.parse(uri)),))
            return cursor.rowcount > 0

    def list(self, *, scope: str | None = None, category: str | None = None) -> _Records:
        """The stored records, oldest first, optionally of one scope and category."""
        if scope is not None:
            check_scope(scope)
        if category is not None:
            check_segment("category", category)
        with self._reading() as db:
            rows = db.execute(
                f"SELECT {_COLUMNS} FROM memories WHERE (?1 IS NULL OR scope = ?1) "
                "AND (?2 IS NULL OR category = ?2) ORDER BY id",
                (scope, category),
            ).fetchall()
        return [_record(row) for row in rows]

    def _disconnect(self) -> None:
        """Close the connection (idempotent) and the embedder's client (it reconnects if used)."""
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
        close_embedder = getattr(self.embedder, "close", None)
        if callable(close_embedder):
            close_embedder()

    def _write(
        self, text: str, where: Where, key: Key, session_id: Key, uri: Key = None
    ) -> MemoryRecord:
        """Store ``text`` at ``uri``, else at a hash of the key (or of scope and content)."""
        scope, category = where
        assert scope is not None and category is not None
        if key is not None and not key:
            raise InvalidMemoryError("an idempotency key must not be empty; pass None instead")
        digest = hashlib.sha256(" ".join(text.split()).encode()).hexdigest()
        with self._reading() as db:
            existing = _existing(db, key, scope, digest)
        if existing is not None:
            return existing
        # Embedded first: a failing embedder fails the call (retryably), nothing half-written.
        vector = None
        if self.embedder is not None:
            vector = normalized(self._embed([text], query=False)[0])
        seed = f"key\0{key}" if key is not None else f"content\0{scope}\0{digest}"
        memory_id = hashlib.sha256(seed.encode()).hexdigest()[:16]
        uri = str(MemoryURI.parse(uri)) if uri else format_memory_uri(scope, category, memory_id)
        created = datetime.now(UTC).isoformat()
        with self._writing() as db:
            existing = _existing(db, key, scope, digest)
            if existing is not None:
                return existing
            cursor = db.execute(
                "INSERT INTO memories (uri, scope, category, content, content_digest, "
                "idempotency_key, session_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (uri, scope, category, text, digest, key, session_id, created),
            )
            row_id = cursor.lastrowid
            if vector is not None and self.embedder is not None:
                db.execute(
                    "INSERT OR REPLACE INTO vectors (memory_id, model, vector) VALUES (?, ?, ?)",
                    (row_id, self.embedder.model, pack(vector)),
                )
            row = db.execute(f"SELECT {_COLUMNS} FROM memories WHERE id = ?", (row_id,)).fetchone()
        return _record(row)

    def _find(self, query: str, top_k: int, where: Where, mode: ops.RecallMode) -> _Hits:
        """BM25, cosine similarity or both fused by reciprocal rank (docs/memory.md, "Ranking")."""
        if mode not in _RECALL_MODES:
            raise InvalidMemoryError(f"unknown recall mode {mode!r}; use one of {_RECALL_MODES}")
        if mode == "embedding" and self.embedder is None:
            raise InvalidMemoryError(
                "recall mode 'embedding' needs an embedder: LocalMemoryStore(path, embedder=...)"
            )
        if not isinstance(query, str) or not words(query):
            return []
        pool = max(top_k * _CANDIDATE_FACTOR, _MIN_CANDIDATES)
        lexical = self._lexical(query, where, pool) if mode != "embedding" else []
        semantic = (
            self._semantic(query, where) if mode != "lexical" and self.embedder is not None else {}
        )
        similar = sorted(
            ((rid, sim) for rid, sim in semantic.items() if sim > self.min_similarity),
            key=lambda item: (-item[1], item[0]),
        )[:pool]
        ranked: _Ranking
        if mode == "lexical" or (mode == "hybrid" and self.embedder is None):
            ranked = lexical
        elif mode == "embedding":
            ranked = similar
        else:
            ranked = fuse(informative(lexical), similar)
        ranked = [(rid, score) for rid, score in ranked if score > 0][:top_k]
        records = self._records([rid for rid, _ in ranked])
        bm25 = dict(lexical)
        return [
            MemoryHit.of(
                records[rid], score, lexical_score=bm25.get(rid), embedding_score=semantic.get(rid)
            )
            for rid, score in ranked
            if rid in records  # a concurrent forget may have removed it
        ]

    def _connect(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise MemoryStoreError(
                f"cannot create the memory store directory {str(self.path.parent)!r}: {exc}",
                retryable=False,
            ) from None
        with self._sqlite_errors():
            conn = sqlite3.connect(
                self.path, timeout=self._busy_timeout, isolation_level=None, check_same_thread=False
            )
            try:
                conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
                conn.execute("PRAGMA journal_mode = WAL")
                # In WAL mode NORMAL survives a process crash; only an OS crash or power cut
                # can lose the last transactions.
                conn.execute("PRAGMA synchronous = NORMAL")
                conn.executescript(_SCHEMA)
                (version,) = conn.execute(
                    "SELECT value FROM meta WHERE key = 'schema_version'"
                ).fetchone()
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                conn.close()
                raise
        if int(version) > SCHEMA_VERSION:
            conn.close()
            raise MemoryStoreError(
                f"memory store {str(self.path)!r} has schema version {version}, newer than "
                f"this Rath understands ({SCHEMA_VERSION}); upgrade Rath",
                retryable=False,
            )
        return conn

    @contextmanager
    def _sqlite_errors(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.OperationalError as exc:
            # Locked or busy databases and I/O hiccups can pass; retrying is the right call.
            raise MemoryStoreError(f"memory store {str(self.path)!r}: {exc}") from None
        except sqlite3.Error as exc:
            raise MemoryStoreError(
                f"memory store {str(self.path)!r} is unusable: {exc}", retryable=False
            ) from None

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        with self._lock, self._sqlite_errors():
            if self._conn is None:
                raise MemoryStoreError(f"{self!r} is closed", retryable=False)
            yield self._conn

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        with self._reading() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _embed(self, texts: Sequence[str], *, query: bool) -> _Vectors:
        assert self.embedder is not None
        vectors = self.embedder.embed(texts, query=query)
        if len(vectors) != len(texts):
            raise MemoryStoreError(
                f"embedder {self.embedder!r} returned {len(vectors)} vectors for {len(texts)} texts"
            )
        return vectors

    def _lexical(self, query: str, where: Where, limit: int) -> _Ranking:
        expression = match_expression(query)
        if expression is None:
            return []
        with self._reading() as db:
            rows = db.execute(
                "SELECT m.id, bm25(memories_fts) FROM memories_fts "
                "JOIN memories AS m ON m.id = memories_fts.rowid "
                "WHERE memories_fts MATCH ?1 AND (?2 IS NULL OR m.scope = ?2) "
                "AND (?3 IS NULL OR m.category = ?3) "
                "ORDER BY bm25(memories_fts), m.id LIMIT ?4",
                (expression, *where, limit),
            ).fetchall()
        return lexical_ranking(rows)

    def _semantic(self, query: str, where: Where) -> dict[int, float]:
        assert self.embedder is not None
        model = self.embedder.model
        self._backfill(model)
        target = normalized(self._embed([query], query=True)[0])
        with self._reading() as db:
            rows = db.execute(
                "SELECT m.id, v.vector FROM vectors AS v JOIN memories AS m ON m.id = v.memory_id "
                "WHERE v.model = ?1 AND (?2 IS NULL OR m.scope = ?2) "
                "AND (?3 IS NULL OR m.category = ?3)",
                (model, *where),
            ).fetchall()
        return {int(rid): dot(target, unpack(blob)) for rid, blob in rows}

    def _backfill(self, model: str) -> None:
        """Embed every memory that has no vector for ``model`` yet."""
        while True:
            with self._reading() as db:
                missing = db.execute(
                    "SELECT id, content FROM memories WHERE id NOT IN "
                    "(SELECT memory_id FROM vectors WHERE model = ?) ORDER BY id LIMIT ?",
                    (model, _BACKFILL_BATCH),
                ).fetchall()
            if not missing:
                return
            vectors = self._embed([content for _, content in missing], query=False)
            with self._writing() as db:
                db.executemany(
                    # Skip rows forgotten meanwhile (AUTOINCREMENT ids are never reused).
                    "INSERT OR REPLACE INTO vectors (memory_id, model, vector) "
                    "SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM memories WHERE id = ?1)",
                    [
                        (rid, model, pack(normalized(vector)))
                        for (rid, _), vector in zip(missing, vectors, strict=True)
                    ],
                )
            if len(missing) < _BACKFILL_BATCH:
                return

    def _records(self, ids: Sequence[int]) -> dict[int, MemoryRecord]:
        if not ids:
            return {}
        marks = ", ".join("?" * len(ids))
        with self._reading() as db:
            rows = db.execute(
                f"SELECT {_COLUMNS} FROM memories WHERE id IN ({marks})", tuple(ids)
            ).fetchall()
        return {int(row[0]): _record(row) for row in rows}


def _local(store: MemoryStore) -> LocalMemoryStore:
    assert isinstance(store, LocalMemoryStore)
    return store


def _run(store: LocalMemoryStore, op: ops.MemoryOp) -> res.MemoryResult:
    if isinstance(op, ops.MemoryOpWrite):
        uri = MemoryURI.parse(op.uri)
        meta = dict(op.metadata or {})
        text = op.content.strip()
        if not text:
            raise InvalidMemoryError("cannot remember empty content")
        where = (uri.scope, uri.category)
        record = store._write(
            text, where, meta.get("key") or uri.id, meta.get("session_id"), op.uri
        )
        return res.MemoryWriteResult(uri=record.uri, bytes_written=len(record.content.encode()))
    if isinstance(op, ops.MemoryOpRead):
        found = store.get(op.uri)
        if found is None:
            return res.MemoryExecutionFailure("not_found", f"no memory at {op.uri}", op.uri)
        data = found.content.encode() if op.encoding is None else found.content
        return res.MemoryReadResult(uri=found.uri, data=data, level=op.level)
    if isinstance(op, ops.MemoryOpList | ops.MemoryOpTree):
        scope, category = parse_memory_prefix(op.uri)
        entries = (
            res.MemoryEntry(r.uri.rsplit("/", 1)[-1], r.uri, is_dir=False, size=len(r.content))
            for r in store.list(scope=scope, category=category)
        )
        return res.MemoryListResult(tuple(entries))
    assert isinstance(op, ops.MemoryOpFind | ops.MemoryOpSearch)
    target: Where = parse_memory_prefix(op.target_uri) if op.target_uri else (None, None)
    mode = (op.mode if isinstance(op, ops.MemoryOpFind) else None) or "hybrid"
    return res.MemoryFindResult(
        tuple(
            store.recall(op.query, top_k=op.top_k, scope=target[0], category=target[1], mode=mode)
        )
    )


def _existing(db: sqlite3.Connection, key: Key, scope: str, digest: str) -> MemoryRecord | None:
    """The record a write with ``key`` or this (scope, content) must return, if any."""
    row = db.execute(
        f"SELECT {_COLUMNS} FROM memories WHERE idempotency_key = ?1 "
        "OR (scope = ?2 AND content_digest = ?3) "
        "ORDER BY idempotency_key IS NOT ?1 LIMIT 1",
        (key, scope, digest),
    ).fetchone()
    return None if row is None else _record(row)


def _record(row: _Row) -> MemoryRecord:
    _, uri, scope, category, content, session_id, created_at = row
    created = datetime.fromisoformat(created_at)
    return MemoryRecord(
        uri=uri,
        content=content,
        scope=scope,
        category=category,
        created_at=created,
        session_id=session_id,
    )
