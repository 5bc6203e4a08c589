"""Session activities: reading a transcript into workflow code, and merging by time.

Workflow code holds transcripts by reference. When an ``async def forward`` awaits a session to
branch on its content, :meth:`SessionActivities.read` brings the rows into the workflow (this
puts them in history once, so it is opt-in: only awaiting does it).
:meth:`SessionActivities.interleave` merges two branches by time in the store and returns only
the result's digest.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, ConfigDict
from temporalio import activity

from rath.activities._boundary import activity_errors
from rath.session._chunks import ChunkRow, canonical_json
from rath.session._merge import interleave_tables
from rath.session._table_ref import TableRef
from rath.store import ChunkStore


class ReadArgs(BaseModel):
    """Input of :meth:`SessionActivities.read`."""

    model_config = ConfigDict(frozen=True)

    table: TableRef


class ReadResult(BaseModel):
    """The rows of a table."""

    model_config = ConfigDict(frozen=True)

    rows: tuple[ChunkRow, ...]


class InterleaveArgs(BaseModel):
    """Input of :meth:`SessionActivities.interleave`: the two branches, by reference."""

    model_config = ConfigDict(frozen=True)

    ours: TableRef
    theirs: TableRef


class InterleaveResult(BaseModel):
    """The merged table's digest (a sealed node in the store) and its row count."""

    model_config = ConfigDict(frozen=True)

    table: str
    rows: int


class PutToolsArgs(BaseModel):
    """Input of :meth:`SessionActivities.put_tools`: tool schemas (OpenAI wire dicts)."""

    model_config = ConfigDict(frozen=True)

    schemas: list[dict[str, Any]]


class PutToolsResult(BaseModel):
    """Where the schemas are stored (what each LLM round carries instead of them)."""

    model_config = ConfigDict(frozen=True)

    digest: str


class SessionActivities:
    """Activities over stored transcripts, bound to the worker's chunk store."""

    def __init__(self, store: ChunkStore) -> None:
        self._store = store

    @activity.defn(name="rath.session.read")
    async def read(self, args: ReadArgs) -> ReadResult:
        """The rows ``args.table`` names."""
        with activity_errors():
            rows = await asyncio.to_thread(self._store.load_rows, args.table)
        return ReadResult(rows=rows)

    @activity.defn(name="rath.session.interleave")
    async def interleave(self, args: InterleaveArgs) -> InterleaveResult:
        """Merge two tables with ``interleave_by_time`` and store the result."""
        with activity_errors():
            digest, count = await asyncio.to_thread(
                interleave_tables, self._store, args.ours, args.theirs
            )
        return InterleaveResult(table=digest, rows=count)

    @activity.defn(name="rath.session.put_tools")
    async def put_tools(self, args: PutToolsArgs) -> PutToolsResult:
        """Store a run's tool schemas once; LLM rounds refer to them by digest."""
        with activity_errors():
            data = canonical_json(args.schemas)
            digest = await asyncio.to_thread(self._store.put_bytes, data)
        return PutToolsResult(digest=digest)
