"""OpenRath's memory operations: frozen, hashable values a store's ``dispatch`` carries out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

RecallMode = Literal["hybrid", "lexical", "embedding"]
"""Rath's ranking of a find (SQLite): BM25, embeddings, or both fused; other backends ignore it."""

MemoryLevel = Literal["abstract", "overview", "detail"]
"""How much of an entry to read: a one-line abstract, an overview, or the whole text."""


class MemoryOp:
    """Marker base of every memory operation."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class MemoryOpWrite(MemoryOp):
    """Write (or replace) free text at ``uri``."""

    uri: str
    content: str
    mode: str = "replace"
    wait: bool = False
    timeout_seconds: float | None = None
    metadata: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class MemoryOpRead(MemoryOp):
    """Read the entry at ``uri`` (``encoding=None`` reads bytes)."""

    uri: str
    level: MemoryLevel = "detail"
    encoding: str | None = "utf-8"


@dataclass(frozen=True, slots=True)
class MemoryOpList(MemoryOp):
    """The immediate children of ``uri``."""

    uri: str


@dataclass(frozen=True, slots=True)
class MemoryOpTree(MemoryOp):
    """Everything under ``uri``, ``depth`` levels deep (0: the immediate children)."""

    uri: str
    depth: int = 2


@dataclass(frozen=True, slots=True)
class MemoryOpFind(MemoryOp):
    """Rank entries against ``query`` (under ``target_uri``, else every scope; ``mode``: Rath's)."""

    query: str
    target_uri: str | None = None
    top_k: int = 8
    mode: RecallMode | None = None


@dataclass(frozen=True, slots=True)
class MemoryOpSearch(MemoryOp):
    """Intent-aware search; backends without it run a :class:`MemoryOpFind`."""

    query: str
    session_id: str | None = None
    target_uri: str | None = None
    top_k: int = 8


@dataclass(frozen=True, slots=True)
class MemoryOpResource(MemoryOp):
    """Ingest a file or URL (``source``) as a resource."""

    source: str
    target_uri: str | None = None
    reason: str = ""
    instruction: str = ""
    wait: bool = True
    timeout_seconds: float | None = None


@dataclass(frozen=True, slots=True)
class MemoryOpCommit(MemoryOp):
    """Archive a conversation and, with ``wait=True`` where a model is set, extract memories."""

    session_id: str
    messages: Sequence[Mapping[str, Any]]
    used_uris: Sequence[str] = ()
    wait: bool = False
    timeout_seconds: float | None = None

    def __hash__(self) -> int:
        return hash((self.session_id, len(self.messages), tuple(self.used_uris), self.wait))
