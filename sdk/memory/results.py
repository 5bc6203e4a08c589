"""What memory operations return: frozen result values and recoverable failures; records.

The plane's operations (:mod:`rath.memory.abc`) return the frozen dataclasses; a store's
``remember``/``recall`` return :class:`MemoryRecord` and its scored :class:`MemoryHit`
(serialisable pydantic values). A failure a caller can act on (a missing entry, a bad URI, an
unreachable server) comes back as a :class:`MemoryExecutionFailure` value, not an exception;
a closed store or an op the backend does not run raise (:mod:`rath.memory.abc`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ConfigDict

__all__ = [
    "FAILURE_KINDS",
    "MemoryCommitResult",
    "MemoryEntry",
    "MemoryExecutionFailure",
    "MemoryFindResult",
    "MemoryListResult",
    "MemoryPlaneHit",
    "MemoryReadResult",
    "MemoryResult",
    "MemoryWriteResult",
]

FAILURE_KINDS = frozenset(
    {
        "not_found",
        "unsupported",
        "transport",
        "extraction_failed",
        "store_closed",
        "unauthorized",
        "timeout",
        "invalid_uri",
        "internal",
    }
)


@dataclass(frozen=True, slots=True)
class MemoryPlaneHit:
    """One ranked entry: its URI, score (higher is better), a snippet and the level read.

    OpenRath calls it ``MemoryHit``; in Rath that name is the recall hit of a store (a record
    and its score), which has the same ``uri``, ``score`` and ``snippet`` to read.
    """

    uri: str
    score: float
    snippet: str | None = None
    level: str | None = None


@dataclass(frozen=True, slots=True)
class MemoryFindResult:
    """The hits of a find or search, best first."""

    hits: tuple[MemoryPlaneHit, ...]


@dataclass(frozen=True, slots=True)
class MemoryReadResult:
    """An entry's content (``bytes`` when read without an encoding)."""

    uri: str
    data: str | bytes
    level: str


@dataclass(frozen=True, slots=True)
class MemoryEntry:
    """One child in a listing."""

    name: str
    uri: str
    is_dir: bool
    size: int | None = None


@dataclass(frozen=True, slots=True)
class MemoryListResult:
    """A listing or a tree, flattened."""

    entries: tuple[MemoryEntry, ...]


@dataclass(frozen=True, slots=True)
class MemoryWriteResult:
    """Where a write landed and how many bytes it wrote."""

    uri: str
    bytes_written: int


@dataclass(frozen=True, slots=True)
class MemoryCommitResult:
    """An archived conversation; ``extracted_count`` is ``-1`` when unknown (not waited for)."""

    task_id: str | None
    archived_uri: str | None
    extracted_count: int


@dataclass(frozen=True, slots=True)
class MemoryExecutionFailure:
    """A recoverable failure: ``kind`` is one of :data:`FAILURE_KINDS`.

    ``detail`` is a short string for programs, as in OpenRath: the URI or source not found,
    the archive a failed extraction left, or the name of the error a remote backend raised.

    Raises:
        ValueError: Another ``kind``.
    """

    kind: str
    message: str
    detail: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in FAILURE_KINDS:
            raise ValueError(
                f"unknown memory failure kind {self.kind!r}; use one of {sorted(FAILURE_KINDS)}"
            )


MemoryResult = (
    MemoryFindResult
    | MemoryReadResult
    | MemoryListResult
    | MemoryWriteResult
    | MemoryCommitResult
    | MemoryExecutionFailure
)


class MemoryRecord(BaseModel):
    """One remembered piece of knowledge.

    Attributes:
        uri: ``memory://<scope>/memories/<category>/<id>``.
        content: The remembered text.
        scope: The URI's scope (``user``, ``agent``, ``session`` or ``resources``).
        category: The URI's category.
        created_at: When it was first written (UTC).
        session_id: The session it was learned from, if the writer said.
    """

    model_config = ConfigDict(frozen=True)

    uri: str
    content: str
    scope: str
    category: str
    created_at: datetime
    session_id: str | None = None


class MemoryHit(BaseModel):
    """A recalled record with its score. Higher scores are better; every score is positive.

    Attributes:
        record: The recalled record.
        score: The ranking score: BM25 for lexical recall, cosine similarity for embedding
            recall, the reciprocal-rank-fusion sum for hybrid recall.
        lexical_score: The record's BM25 score (positive), if the lexical search found it.
        embedding_score: Its cosine similarity to the query, if the embedding search ranked it.
    """

    model_config = ConfigDict(frozen=True)

    record: MemoryRecord
    score: float
    lexical_score: float | None = None
    embedding_score: float | None = None

    @property
    def uri(self) -> str:
        """The record's URI."""
        return self.record.uri

    @property
    def content(self) -> str:
        """The record's content."""
        return self.record.content

    @property
    def snippet(self) -> str:
        """The content as a backend plane's hit shows it (OpenRath's ``MemoryHit.snippet``)."""
        return snippet(self.record.content)

    @property
    def level(self) -> str:
        """Always ``"detail"``: a record is read whole."""
        return "detail"


SNIPPET_CHARS = 200


def snippet(text: str) -> str:
    """``text`` stripped, cut at :data:`SNIPPET_CHARS` with ``...`` when longer."""
    text = text.strip()
    return text if len(text) <= SNIPPET_CHARS else text[:SNIPPET_CHARS] + "..."
