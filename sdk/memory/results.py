"""What memory operations return: frozen result values and recoverable failures.

A failure a caller can act on (a missing entry, a bad URI, an unreachable server) comes back
as a :class:`MemoryExecutionFailure` value, not an exception; a closed store or an op the
backend does not run raise (:mod:`rath.memory.abc`).
"""

from __future__ import annotations

from dataclasses import dataclass

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
