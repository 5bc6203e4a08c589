"""OpenRath's memory injection policies, and how a durable Agent applies them.

A durable run recalls on the worker (an activity) and injects the hits as marked SYSTEM rows
before the model call. :class:`DefaultRecallInjection` configures that recall: ``top_k``
hits from ``target_uri`` (a scope or a ``memory://<scope>/memories/<category>`` prefix).
A policy of your own (any object with ``inject(session, store)``) runs in this process only:
call it yourself, because a worker cannot run client code in the middle of a run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from rath.memory import MemoryStore, injectable, injection_query, memory_row, parse_memory_prefix
from rath.session import ChunkRow, Session

__all__ = ["DefaultRecallInjection", "MemoryInjectionPolicy"]


@runtime_checkable
class MemoryInjectionPolicy(Protocol):
    """Chooses the SYSTEM rows a store contributes to a session."""

    def inject(self, session: Session, store: object) -> tuple[ChunkRow, ...]:
        """The rows to put before the session's own."""
        ...


@dataclass(frozen=True, slots=True)
class DefaultRecallInjection:
    """Recall up to ``top_k`` memories for the newest user text, from ``target_uri``.

    ``level`` is OpenRath's and informational: an injected memory carries its whole text.
    """

    top_k: int = 4
    target_uri: str | None = None
    level: Literal["abstract", "overview", "detail"] = "abstract"

    def inject(self, session: Session, store: object) -> tuple[ChunkRow, ...]:
        """The memory rows for ``session`` from ``store`` (none when nothing matches).

        Raises:
            TypeError: ``store`` is not a memory store.
        """
        if not isinstance(store, MemoryStore):
            raise TypeError(f"inject needs a memory store, not {type(store).__name__}")
        rows = session.chunk_table.rows
        query = injection_query(rows)
        if query is None:
            return ()
        scope, category = parse_memory_prefix(self.target_uri) if self.target_uri else (None, None)
        hits = store.recall(query, top_k=self.top_k, scope=scope, category=category)
        return tuple(memory_row(hit.record) for hit in injectable(hits, rows))
