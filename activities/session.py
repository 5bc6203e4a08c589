"""Session activities: reading a transcript into workflow code, and merging by time.

Workflow code holds transcripts by reference. When an ``async def forward`` awaits a session to
branch on its content, :meth:`SessionActivities.read` brings the rows into the workflow (this
puts them in history once, so it is opt-in: only awaiting does it).
"""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, ConfigDict
from temporalio import activity

from rath.activities._boundary import activity_errors
from rath.session._chunks import ChunkRow
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
