"""Session activities: reading a transcript into workflow code, and merging by time.

Workflow code holds transcripts by reference. When an ``async def forward`` awaits a session to
branch on its content, :meth:`SessionActivities.read` brings the rows into the workflow (this
puts them in history once, so it is opt-in: only awaiting does it).
:meth:`SessionActivities.interleave` merges two branches by time in the store and returns only
the result's digest.
"""

from __future__ import annotations

import asyncio

from rath.activities._boundary import activity_errors
from rath.contracts.session import (
    INTERLEAVE,
    PUT_TOOLS,
    READ_ROWS,
    RECORD_SESSION,
    CatalogArgs,
    CatalogResult,
    InterleaveArgs,
    InterleaveResult,
    PutToolsArgs,
    PutToolsResult,
    ReadArgs,
    ReadResult,
)
from rath.llm.chat_response import usage_json
from rath.session.chunk import canonical_json
from rath.session.merge import interleave_by_time
from rath.session.table_ref import TableRef
from rath.store import Catalog, ChunkStore, SessionRecord


class SessionActivities:
    """Activities over stored transcripts, bound to the worker's chunk store."""

    def __init__(self, store: ChunkStore) -> None:
        self._store = store
        self._catalog = Catalog(store.objects)

    @RECORD_SESSION.implement
    async def record(self, args: CatalogArgs) -> CatalogResult:
        """Seal the session's transcript (one node) and write its catalog record."""
        with activity_errors():
            root = await asyncio.to_thread(self._write_record, args)
        return CatalogResult(root=root)

    def _write_record(self, args: CatalogArgs) -> str | None:
        root = self._store.seal(args.table) if args.table is not None else None
        earlier = self._catalog.get(args.session_id)
        created = earlier.created if earlier is not None else args.created  # across runs
        usage = usage_json(args.usage) if args.usage is not None else {}
        placement = args.placement.model_dump(mode="json") if args.placement else None
        self._catalog.put(
            SessionRecord(
                id=args.session_id,
                parents=args.parents,
                kind=args.kind,
                operator=args.operator,
                agent=args.agent,
                created=created,
                closed=args.closed,
                status=args.status,
                usage=usage,
                root=root,
                placement=placement,
                workflow_id=args.workflow_id,
                error=args.error,
                model=args.model if args.model is not None else getattr(earlier, "model", None),
                extras=args.extras or (earlier.extras if earlier is not None else {}),
            )
        )
        if args.graph is not None:
            self._catalog.put_graph(args.session_id, args.graph.to_jsonl())
        return root

    @READ_ROWS.implement
    async def read(self, args: ReadArgs) -> ReadResult:
        """The rows ``args.table`` names."""
        with activity_errors():
            rows = await asyncio.to_thread(self._store.load_rows, args.table)
        return ReadResult(rows=rows)

    @INTERLEAVE.implement
    async def interleave(self, args: InterleaveArgs) -> InterleaveResult:
        """Merge two tables with ``interleave_by_time`` and store the result."""
        with activity_errors():
            digest, count = await asyncio.to_thread(
                _interleave, self._store, args.ours, args.theirs
            )
        return InterleaveResult(table=digest, rows=count)

    @PUT_TOOLS.implement
    async def put_tools(self, args: PutToolsArgs) -> PutToolsResult:
        """Store a run's tool schemas once; LLM rounds refer to them by digest."""
        with activity_errors():
            data = canonical_json(args.schemas)
            digest = await self._store.run_io(self._store.put_bytes, data)
        return PutToolsResult(digest=digest)


def _interleave(store: ChunkStore, ours: TableRef, theirs: TableRef) -> tuple[str, int]:
    """Interleave two stored tables; the sealed result's digest and its row count."""
    rows = interleave_by_time(store.load_rows(ours), store.load_rows(theirs))
    return store.seal(TableRef.inline(*rows)), len(rows)
