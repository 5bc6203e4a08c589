"""OpenRath's memory injection policies, and how a durable Agent applies them.

A durable run recalls on the worker (an activity) and injects the hits as marked SYSTEM rows
before the model call. :class:`DefaultRecallInjection` configures that recall: ``top_k``
hits from ``target_uri`` (a scope or a ``memory://<scope>/memories/<category>`` prefix).
Its :meth:`~DefaultRecallInjection.inject`, and a policy of your own (any object with
``inject(session, store)``), run in this process only: call them yourself, because a worker
cannot run client code in the middle of a run.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from rath.memory import (
    MemoryFindResult,
    MemoryOpFind,
    MemoryStore,
    injected_memory_uris,
    is_memory_row,
    parse_memory_prefix,
)
from rath.session import ChunkKind, ChunkRow, Session, system_text_chunk

__all__ = ["DefaultRecallInjection", "MemoryInjectionPolicy", "is_injected_row"]

_LOG = logging.getLogger(__name__)

INJECTED_PREFIX = "[memory:"
"""How a row :meth:`DefaultRecallInjection.inject` made starts: ``[memory:<uri>] <snippet>``."""


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
        """One SYSTEM row ``[memory:<uri>] <snippet>`` per hit for ``session`` from ``store``.

        The query is the last non-empty user message. A plane store gets a ``MemoryOpFind``
        with ``target_uri`` as given; a Rath store recalls from that scope or prefix. Hits
        with no positive score, and memories the session already holds, are left out. Never
        raises for the store: a closed store (or an object that is not one) and a failed
        recall log a warning and give ``()``.
        """
        unusable = _unusable(store)
        if unusable is not None:
            _LOG.warning("memory injection skipped: %s (%r)", unusable, _handle(store))
            return ()
        rows = session.chunk_table.rows
        query = _last_user_text(rows)
        if query is None:
            return ()
        try:
            hits = self._hits(store, query)
        except Exception as exc:  # injection must never break the caller's turn
            _LOG.warning("memory injection recall failed (%r): %s", _handle(store), exc)
            return ()
        return tuple(_hit_row(hit) for hit in _new_hits(hits, rows))

    def _hits(self, store: object, query: str) -> Sequence[Any]:
        dispatch = getattr(store, "dispatch", None)
        if callable(dispatch):
            found = dispatch(
                MemoryOpFind(query=query, target_uri=self.target_uri, top_k=self.top_k)
            )
            return found.hits if isinstance(found, MemoryFindResult) else ()
        if not isinstance(store, MemoryStore):
            raise TypeError(f"{type(store).__name__} has neither dispatch() nor recall()")
        target = self.target_uri
        scope, category = parse_memory_prefix(target) if target else (None, None)
        return store.recall(query, top_k=self.top_k, scope=scope, category=category)


def is_injected_row(row: ChunkRow) -> bool:
    """Whether ``row`` is an injected memory (either form: Rath's marker or OpenRath's)."""
    return is_memory_row(row) or _openrath_uri(row) is not None


def _unusable(store: object) -> str | None:
    """Why ``store`` cannot be recalled from, or ``None``."""
    closed = getattr(store, "closed", None)
    if isinstance(closed, bool):
        return "store is closed" if closed else None
    # A Rath store has no ``closed`` flag: it is open until a recall fails.
    return None if isinstance(store, MemoryStore) else "not a memory store"


def _handle(store: object) -> object:
    return getattr(store, "handle", store)


def _last_user_text(rows: Sequence[ChunkRow]) -> str | None:
    for row in reversed(rows):
        content = row.payload.get("content")
        if row.kind is ChunkKind.USER and isinstance(content, str) and content.strip():
            return content
    return None


def _new_hits(hits: Iterable[Any], rows: Sequence[ChunkRow]) -> list[Any]:
    """Hits with a positive score whose memory ``rows`` do not hold yet, each once."""
    seen = injected_memory_uris(rows) | {uri for row in rows if (uri := _openrath_uri(row))}
    chosen = []
    for hit in hits:
        if hit.score > 0 and hit.uri not in seen:
            seen.add(hit.uri)
            chosen.append(hit)
    return chosen


def _hit_row(hit: Any) -> ChunkRow:
    snippet = (hit.snippet or "").strip()
    head = f"{INJECTED_PREFIX}{hit.uri}]"
    return system_text_chunk(f"{head} {snippet}" if snippet else head)


def _openrath_uri(row: ChunkRow) -> str | None:
    content = row.payload.get("content")
    if row.kind is not ChunkKind.SYSTEM or not isinstance(content, str):
        return None
    if not content.startswith(INJECTED_PREFIX) or "]" not in content:
        return None
    return content[len(INJECTED_PREFIX) : content.index("]")]
