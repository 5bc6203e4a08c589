"""What memory operations return: frozen results, recoverable failures as values, records.

docs/memory.md, "Model" and "The memory plane".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict

EPOCH = datetime.fromtimestamp(0, UTC)

_KINDS = "not_found unsupported transport extraction_failed store_closed unauthorized timeout"
FAILURE_KINDS = frozenset([*_KINDS.split(), "invalid_uri", "internal"])


@dataclass(frozen=True, slots=True)
class MemoryFindResult:
    """The hits of a find or search, best first."""

    hits: tuple[MemoryHit, ...]


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
    """A recoverable failure of a kind in :data:`FAILURE_KINDS` (else ``ValueError``).

    ``detail``, as in OpenRath: the URI not found, a failed extraction's archive, an error name.
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
    """One remembered piece of knowledge: its URI's parts, when it was first written (UTC)."""

    model_config = ConfigDict(frozen=True)

    uri: str
    content: str
    scope: str
    category: str
    created_at: datetime
    session_id: str | None = None


@dataclass(frozen=True, slots=True)
class MemoryHit:
    """One ranked entry (higher is better): OpenRath's fields, then Rath's record and parts."""

    uri: str
    score: float
    snippet: str | None = None
    level: str | None = None
    record: MemoryRecord | None = None
    lexical_score: float | None = None
    embedding_score: float | None = None

    @classmethod
    def of(cls, record: MemoryRecord, score: float, **parts: float | None) -> MemoryHit:
        """The hit of a whole ``record`` (``parts``: ``lexical_score``, ``embedding_score``)."""
        text = snippet(record.content)
        return cls(record.uri, score, text, "detail", record, **parts)

    @property
    def content(self) -> str:
        """The record's content, else the snippet."""
        return self.record.content if self.record is not None else (self.snippet or "")

    def as_record(self) -> MemoryRecord:
        """The hit's record (one made of its URI and text when the backend gave none)."""
        return self.record if self.record is not None else record_of(self.uri, self.content)


class MemoryHits(list[MemoryHit]):
    """Rath's recall: a list of hits, best first, with OpenRath's ``.hits`` as well."""

    @property
    def hits(self) -> tuple[MemoryHit, ...]:
        """The hits, as OpenRath's :class:`MemoryFindResult` holds them."""
        return tuple(self)


def record_of(uri: str, content: str, session_id: str | None = None) -> MemoryRecord:
    """The record of an entry a backend keeps no write time for (``created_at`` is the epoch)."""
    parts = uri.split("://", 1)[-1].split("/")
    category = parts[2] if len(parts) > 3 and parts[1] == "memories" else ""
    return MemoryRecord(
        uri=uri,
        content=content,
        scope=parts[0],
        category=category,
        created_at=EPOCH,
        session_id=session_id,
    )


SNIPPET_CHARS = 200


def snippet(text: str) -> str:
    """``text`` stripped, cut at :data:`SNIPPET_CHARS` with ``...`` when longer."""
    text = text.strip()
    return text if len(text) <= SNIPPET_CHARS else text[:SNIPPET_CHARS] + "..."
