"""The SQLite memory database behind ``LocalMemoryStore``: full-text and embedding recall.

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
from rath.memory._tokens import content_digest, match_expression
from rath.memory.abc import DEFAULT_CATEGORY, DEFAULT_SCOPE, DEFAULT_TOP_K
from rath.memory.errors import InvalidMemoryError
from rath.memory.op_types import RecallMode
from rath.memory.results import MemoryHit, MemoryRecord
from rath.memory.uri import MemoryURI, check_scope, check_segment, format_memory_uri
from rath.utils.text import words
from rath.utils.vectors import dot, normalized, pack, unpack

SCHEMA_VERSION = 1
RRF_K = 60
"""The reciprocal-rank-fusion constant: a hit ranked ``r`` in one list adds ``1 / (RRF_K + r)``."""

TOKENIZER = "porter unicode61 remove_diacritics 2"
"""FTS5 tokenizer: Unicode word splitting without diacritics, with English Porter stemming."""

# FTS5's bm25() floors the idf of a word found in at least half of the rows at 1e-6, so a hit
# that matched only such words ("user" in "The user ...") scores about 1e-6 per word. Next to
# a hit that matched a distinctive word (scores near 1) it is noise, and is dropped; when every
# hit matched only common words (a store of similar memories) they are all kept.
_RELATIVE_FLOOR = 1e-3
_NEGLIGIBLE_BM25 = 1e-4

_RECALL_MODES = ("hybrid", "lexical", "embedding")
_MIN_CANDIDATES = 20
_CANDIDATE_FACTOR = 4
_BACKFILL_BATCH = 64

_SCHEMA = f"""
BEGIN IMMEDIATE;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', '{SCHEMA_VERSION}');
CREATE TABLE IF NOT EXISTS memories (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    uri TEXT NOT NULL UNIQUE,
    scope TEXT NOT NULL,
    category TEXT NOT NULL,
    content TEXT NOT NULL,
    content_digest TEXT NOT NULL,
    idempotency_key TEXT UNIQUE,
    session_id TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (scope, content_digest)
);
CREATE TABLE IF NOT EXISTS vectors (
    memory_id INTEGER NOT NULL,
    model TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (memory_id, model)
);
CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(
    content, content='memories', content_rowid='id',
    tokenize='{TOKENIZER}'
);
CREATE TRIGGER IF NOT EXISTS memories_after_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER IF NOT EXISTS memories_after_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content)
        VALUES ('delete', old.id, old.content);
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
_Where = tuple[str | None, str | None]  # (scope, category) filters of a recall


class SqliteMemoryDB:
    """Memories in a SQLite file that persists across processes and restarts.

    Args:
        path: The database file (its directory is created). Several stores, in this process
            or others, may open the same file at once.
        embedder: Enables embedding and hybrid recall; without one, recall is lexical.
        min_similarity: Embedding matches at or below this cosine similarity are dropped.
            The default keeps every positive similarity; with a real model, whose unrelated
            texts still score well above zero, raise it to keep only close matches.
        busy_timeout: How long a write waits for another process's write lock, in seconds.

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
    ) -> None:
        self.path = Path(path).expanduser()
        self.embedder = embedder
        self.min_similarity = min_similarity
        self._busy_timeout = busy_timeout
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = self._open()

    def __repr__(self) -> str:
        extra = f", embedder={self.embedder!r}" if self.embedder is not None else ""
        return f"SqliteMemoryDB({str(self.path)!r}{extra})"

    def remember(
        self,
        content: str,
        scope: str = DEFAULT_SCOPE,
        category: str = DEFAULT_CATEGORY,
        *,
        key: str | None = None,
        session_id: str | None = None,
        uri: str | None = None,
    ) -> MemoryRecord:
        """Store ``content`` (see :meth:`MemoryStore.remember`; ``uri``: where, if given).

        With an embedder, the content is embedded before the row is written, so a failing
        embedder fails the call (retryably) and leaves nothing half-written.
        """
        text = content.strip() if isinstance(content, str) else ""
        if not text:
            raise InvalidMemoryError("cannot remember empty content")
        check_scope(scope)
        check_segment("category", category)
        if key is not None and not key:
            raise InvalidMemoryError("an idempotency key must not be empty; pass None instead")
        digest = content_digest(text)
        with self._reading() as db:
            existing = _existing(db, key, scope, digest)
        if existing is not None:
            return existing
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

    def recall(
        self,
        query: str,
        *,
        top_k: int = DEFAULT_TOP_K,
        scope: str | None = None,
        mode: RecallMode = "hybrid",
        category: str | None = None,
    ) -> _Hits:
        """Rank memories against ``query`` (see :meth:`MemoryStore.recall`).

        ``lexical`` ranks by BM25 over the words of the query (stopwords dropped); hits that
        matched only words found in most memories are dropped when another hit matched a
        rarer word. ``embedding`` ranks by cosine similarity above ``min_similarity``.
        ``hybrid`` fuses both rankings by reciprocal rank (each list adds
        ``1 / (60 + rank)``), falling back to lexical alone when the store has no embedder.
        A query with no letters or digits returns no hits.
        """
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise InvalidMemoryError(f"top_k must be a positive integer, got {top_k!r}")
        if scope is not None:
            check_scope(scope)
        if category is not None:
            check_segment("category", category)
        if mode not in _RECALL_MODES:
            raise InvalidMemoryError(f"unknown recall mode {mode!r}; use one of {_RECALL_MODES}")
        if mode == "embedding" and self.embedder is None:
            raise InvalidMemoryError(
                "recall mode 'embedding' needs an embedder: LocalMemoryStore(path, embedder=...)"
            )
        if not isinstance(query, str) or not words(query):
            return []
        pool = max(top_k * _CANDIDATE_FACTOR, _MIN_CANDIDATES)
        where = (scope, category)
        lexical = self._lexical(query, where, pool) if mode != "embedding" else []
        semantic = (
            self._semantic(query, where) if mode != "lexical" and self.embedder is not None else {}
        )
        similar = sorted(
            ((rid, sim) for rid, sim in semantic.items() if sim > self.min_similarity),
            key=lambda item: (-item[1], item[0]),
        )[:pool]
        bm25 = dict(lexical)
        ranked: _Ranking
        if mode == "lexical" or (mode == "hybrid" and self.embedder is None):
            ranked = lexical
        elif mode == "embedding":
            ranked = similar
        else:
            # A lexical hit that matched only very common words says nothing; left in, it
            # would outrank the embedding's best hit whenever the two lists overlap.
            informative = [(rid, score) for rid, score in lexical if score >= _NEGLIGIBLE_BM25]
            ranked = _fuse(informative, similar)
        ranked = [(rid, score) for rid, score in ranked if score > 0][:top_k]
        records = self._records([rid for rid, _ in ranked])
        return [
            MemoryHit.of(
                records[rid], score, lexical_score=bm25.get(rid), embedding_score=semantic.get(rid)
            )
            for rid, score in ranked
            if rid in records  # a concurrent forget may have removed it
        ]

    def get(self, uri: str) -> MemoryRecord | None:
        """Return the record at ``uri``, or ``None``."""
        parsed = MemoryURI.parse(uri)
        with self._reading() as db:
            row = db.execute(
                f"SELECT {_COLUMNS} FROM memories WHERE uri = ?", (str(parsed),)
            ).fetchone()
        return None if row is None else _record(row)

    def forget(self, uri: str) -> bool:
        """Delete the record at ``uri`` (and its vectors); return whether there was one."""
        parsed = MemoryURI.parse(uri)
        with self._writing() as db:
            cursor = db.execute("DELETE FROM memories WHERE uri = ?", (str(parsed),))
            return cursor.rowcount > 0

    def list(self, *, scope: str | None = None, category: str | None = None) -> _Records:
        """Return the stored records, oldest first, optionally of one scope and category."""
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

    def close(self) -> None:
        """Close the database connection (idempotent); the data stays on disk.

        An embedder with a ``close`` method (an HTTP client) is closed too; it reconnects if
        used again, so an embedder shared between stores keeps working.
        """
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
        close_embedder = getattr(self.embedder, "close", None)
        if callable(close_embedder):
            close_embedder()

    def _open(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise MemoryStoreError(
                f"cannot create the memory store directory {str(self.path.parent)!r}: {exc}",
                retryable=False,
            ) from None
        with self._sqlite_errors():
            conn = sqlite3.connect(
                self.path,
                timeout=self._busy_timeout,
                isolation_level=None,
                check_same_thread=False,
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
            yield self._connection()

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        with self._lock, self._sqlite_errors():
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise MemoryStoreError(f"{self!r} is closed", retryable=False)
        return self._conn

    def _embed(self, texts: Sequence[str], *, query: bool) -> _Vectors:
        assert self.embedder is not None
        vectors = self.embedder.embed(texts, query=query)
        if len(vectors) != len(texts):
            raise MemoryStoreError(
                f"embedder {self.embedder!r} returned {len(vectors)} vectors for {len(texts)} texts"
            )
        return vectors

    def _lexical(self, query: str, where: _Where, limit: int) -> _Ranking:
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
        # bm25() is lower-is-better and negative for matches; flip it so higher is better.
        ranking = [(int(rid), -float(rank)) for rid, rank in rows if rank < 0]
        floor = ranking[0][1] * _RELATIVE_FLOOR if ranking else 0.0
        return [(rid, score) for rid, score in ranking if score >= floor]

    def _semantic(self, query: str, where: _Where) -> dict[int, float]:
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


def _existing(
    db: sqlite3.Connection, key: str | None, scope: str, digest: str
) -> MemoryRecord | None:
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
    return MemoryRecord(
        uri=uri,
        content=content,
        scope=scope,
        category=category,
        created_at=datetime.fromisoformat(created_at),
        session_id=session_id,
    )


def _fuse(*rankings: Sequence[tuple[int, float]]) -> _Ranking:
    """Reciprocal-rank fusion of best-first rankings: ``sum(1 / (RRF_K + rank))`` per id."""
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, (rid, _) in enumerate(ranking, start=1):
            fused[rid] = fused.get(rid, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))
