"""The session catalog: one small record per session, beside its chunks. See docs/modules.md."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from rath.errors import StoreError
from rath.store.objects import ObjectStore, read_model

CATALOG_PREFIX = "catalog/"
"""Key prefix of every catalog record."""
GRAPH_PREFIX = "graphs/"
"""Key prefix of the session graphs durable forwards leave (JSONL, one per output session)."""

SessionStatus = Literal[
    "running", "completed", "failed", "cancelled", "terminated", "timed_out", "unknown"
]
"""A session's status: ``running`` until its run closes, then how it closed (``unknown``:
Temporal forgot the run before its end was recorded)."""


def _now() -> datetime:
    return datetime.now(UTC)


class SessionRecord(BaseModel):
    """What the catalog knows about one session."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    parents: tuple[UUID, ...] = ()
    kind: str = "unknown"
    operator: str = "implicit"
    agent: str | None = None
    created: datetime = Field(default_factory=_now)
    closed: datetime | None = None
    status: SessionStatus = "running"
    usage: dict[str, int] = Field(default_factory=dict)
    root: str | None = None
    placement: dict[str, Any] | None = None
    workflow_id: str | None = None
    error: str | None = None
    model: str | None = None
    extras: dict[str, Any] = Field(default_factory=dict)


def record_key(session_id: UUID | str) -> str:
    """The object key of a session's record."""
    return f"{CATALOG_PREFIX}{UUID(str(session_id))}.json"


def graph_key(session_id: UUID | str) -> str:
    """The object key of the session graph a run left beside its output's record."""
    return f"{GRAPH_PREFIX}{UUID(str(session_id))}.jsonl"


class Catalog:
    """Session records in an object store."""

    def __init__(self, objects: ObjectStore) -> None:
        self.objects = objects

    def __repr__(self) -> str:
        return f"Catalog({self.objects.describe()!r})"

    def put(self, record: SessionRecord) -> None:
        """Write (or replace) a session's record."""
        self.objects.put(record_key(record.id), record.model_dump_json().encode(), overwrite=True)

    def get(self, session_id: UUID | str) -> SessionRecord | None:
        """A session's record, or None when the catalog has none.

        Raises:
            StoreError: The record exists but cannot be read.
        """
        return read_model(self.objects, record_key(session_id), SessionRecord, "catalog record")

    def delete(self, session_id: UUID | str) -> None:
        """Remove a session's record and graph (its chunks are left to garbage collection)."""
        self.objects.delete(record_key(session_id))
        self.objects.delete(graph_key(session_id))

    def put_graph(self, session_id: UUID | str, jsonl: str) -> None:
        """Keep the session graph (``SessionGraph.to_jsonl()``) of the run that made a session."""
        self.objects.put(graph_key(session_id), jsonl.encode(), overwrite=True)

    def graph(self, session_id: UUID | str) -> str | None:
        """The session graph JSONL kept for a session, or None."""
        try:
            return self.objects.get(graph_key(session_id)).decode()
        except FileNotFoundError:
            return None

    def __iter__(self) -> Iterator[SessionRecord]:
        """Every record, in no particular order (unreadable records are skipped)."""
        for info in self.objects.list(CATALOG_PREFIX):
            try:
                record = read_model(self.objects, info.key, SessionRecord, "catalog record")
            except StoreError:
                continue
            if record is not None:  # None: deleted while listing
                yield record

    def records(self) -> list[SessionRecord]:
        """Every record, oldest first."""
        return sorted(self, key=lambda record: (record.created, str(record.id)))
