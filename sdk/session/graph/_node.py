"""``GraphNode``: one session's lineage, as a snapshot (no rows)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from rath.llm.chat_response import RathLLMTokenUsage, usage_json
from rath.session.graph.kind import LineageKind
from rath.session.session import Session
from rath.utils.records import jsonable


class GraphNode(BaseModel):
    """One session in a graph: its lineage, and what is known of it without waiting."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    parent_session_ids: tuple[UUID, ...] = ()
    lineage_kind: LineageKind
    lineage_operator: str = "implicit"
    lineage_extras: tuple[tuple[str, Any], ...] = ()
    chunk_count: int | None = None
    cumulative_usage: RathLLMTokenUsage | None = None
    agent: str | None = None
    run_id: str | None = None

    @classmethod
    def from_session(
        cls, session: Session, *, agent: str | None = None, run_id: str | None = None
    ) -> GraphNode:
        """Snapshot ``session`` without waiting for it."""
        # Not validated again: every field comes from a validated session (a fan-out records
        # thousands of nodes in one workflow task).
        return cls.model_construct(
            id=session.id,
            parent_session_ids=session.parent_session_ids,
            lineage_kind=session.lineage_kind,
            lineage_operator=session.lineage_operator,
            lineage_extras=session.lineage_extras,
            chunk_count=_known_chunk_count(session),
            cumulative_usage=session.usage,
            agent=agent,
            run_id=run_id if run_id is not None else session.run_id,
        )

    def to_json_row(self) -> dict[str, Any]:
        """This node as one JSONL row (OpenRath's keys, then ``agent`` and ``run_id``)."""
        usage = self.cumulative_usage
        return {
            "id": str(self.id),
            "parent_session_ids": [str(pid) for pid in self.parent_session_ids],
            "lineage_operator": self.lineage_operator,
            "lineage_kind": self.lineage_kind.value,
            "lineage_extras": [
                [str(key), jsonable(value, allow_nan=False)] for key, value in self.lineage_extras
            ],
            "chunk_count": self.chunk_count,
            "cumulative_usage": None if usage is None else usage_json(usage),
            "agent": self.agent,
            "run_id": self.run_id,
        }


def _known_chunk_count(session: Session) -> int | None:
    if session._pending is not None:  # a lazy result: synchronize() publishes the real table
        return None
    if session._rows is not None:
        return len(session._rows)
    inline = session.table.inline_rows()
    return None if inline is None else len(inline)
