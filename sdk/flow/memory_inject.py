"""OpenRath's memory injection policies (docs/memory.md, "Injection").

A durable run recalls on the worker; :meth:`DefaultRecallInjection.inject` and policies of your
own (``inject(session, store)``) run in this process only: call them yourself.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from rath.memory import MemoryFindResult, MemoryHit, MemoryOpFind, injectable, is_memory_row
from rath.session import ChunkKind, ChunkRow, Session, system_text_chunk

__all__ = ["DefaultRecallInjection", "MemoryInjectionPolicy", "is_injected_row"]

_LOG = logging.getLogger(__name__)

is_injected_row = is_memory_row
"""Whether a row is an injected memory (either form: Rath's marker or OpenRath's)."""


@runtime_checkable
class MemoryInjectionPolicy(Protocol):
    """Chooses the SYSTEM rows a store contributes to a session."""

    def inject(self, session: Session, store: object) -> tuple[ChunkRow, ...]:
        """The rows to put before the session's own."""
        ...


@dataclass(frozen=True, slots=True)
class DefaultRecallInjection:
    """Recall up to ``top_k`` memories for the last user message, from ``target_uri``.

    ``level`` is OpenRath's and informational.
    """

    top_k: int = 4
    target_uri: str | None = None
    level: Literal["abstract", "overview", "detail"] = "abstract"

    def inject(self, session: Session, store: object) -> tuple[ChunkRow, ...]:
        """One ``[memory:<uri>] <snippet>`` row per new, positive hit; ``()`` on any failure.

        A closed store, an object that is not one, and a failed recall log a warning.
        """
        closed = getattr(store, "closed", None)
        if closed is not False:
            why = "store is closed" if closed is True else "not a memory store"
            _LOG.warning("memory injection skipped: %s (%r)", why, _handle(store))
            return ()
        rows = session.chunk_table.rows
        query = _last_user_text(rows)
        if query is None:
            return ()
        op = MemoryOpFind(query, self.target_uri, self.top_k)
        try:  # injection must never break the caller's turn
            found = store.dispatch(op)  # type: ignore[attr-defined]
        except Exception as exc:
            _LOG.warning("memory injection recall failed (%r): %s", _handle(store), exc)
            return ()
        hits = found.hits if isinstance(found, MemoryFindResult) else ()
        return tuple(_hit_row(hit) for hit in injectable(hits, rows))


def _handle(store: object) -> object:
    return getattr(store, "handle", store)


def _last_user_text(rows: Sequence[ChunkRow]) -> str | None:
    for row in reversed(rows):
        content = row.payload.get("content")
        if row.kind is ChunkKind.USER and isinstance(content, str) and content.strip():
            return content
    return None


def _hit_row(hit: MemoryHit) -> ChunkRow:
    snippet = (hit.snippet or "").strip()
    head = f"[memory:{hit.uri}]"
    return system_text_chunk(f"{head} {snippet}" if snippet else head)
