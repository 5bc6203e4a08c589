"""``GraphNode`` and ``SessionGraph``: lineage snapshots, their traversal and JSONL form."""

from __future__ import annotations

import json
from collections.abc import Iterable
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID

from pydantic import BaseModel, ConfigDict, PrivateAttr, field_validator

from rath.llm._usage import TokenUsage
from rath.session._lineage import LineageKind
from rath.session.graph import _render
from rath.session.graph._traverse import (
    ancestors_bfs,
    descendants_dfs_preorder,
    edge_pairs,
    validate_acyclic,
)

if TYPE_CHECKING:  # `_session` imports the graph package at run time, so not the reverse
    from rath.session._session import Session


class GraphNode(BaseModel):
    """One session in a graph: its lineage, and what is known of it without waiting.

    Attributes:
        id: The session's id.
        parent_session_ids: The sessions it was made from (producers), in order.
        lineage_kind: The operation that made it.
        lineage_operator: The name of that operation, e.g. ``"Session.fork"``.
        lineage_extras: Extra lineage facts, e.g. ``(("loop.truncated", True),)``.
        chunk_count: Rows in its transcript; ``None`` while unknown (a lazy session).
        cumulative_usage: Tokens used producing it; ``None`` if none or not known yet.
        agent: The agent that produced it, when known.
        run_id: The Temporal workflow id of the run that produced it, when it is a run's output.
    """

    model_config = ConfigDict(frozen=True)

    id: UUID
    parent_session_ids: tuple[UUID, ...] = ()
    lineage_kind: LineageKind
    lineage_operator: str = "implicit"
    lineage_extras: tuple[tuple[str, Any], ...] = ()
    chunk_count: int | None = None
    cumulative_usage: TokenUsage | None = None
    agent: str | None = None
    run_id: str | None = None

    @classmethod
    def from_session(
        cls, session: Session, *, agent: str | None = None, run_id: str | None = None
    ) -> GraphNode:
        """Snapshot ``session`` without waiting for it.

        Only eager fields are read. A lazy session's chunk count and usage stay ``None``
        until it has been synchronised; nothing here loads rows or waits for a run.

        Args:
            session: The session to describe.
            agent: The agent that produced it, if known.
            run_id: The producing run's workflow id; defaults to ``session.run_id``.
        """
        return cls(
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
            "lineage_extras": [[str(key), _jsonable(value)] for key, value in self.lineage_extras],
            "chunk_count": self.chunk_count,
            "cumulative_usage": None if usage is None else usage.model_dump(),
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


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):  # unserialisable, circular, or NaN/inf (invalid JSON)
        return str(value)
    return value


class SessionGraph(BaseModel):
    """A lineage DAG: nodes in insertion order, edges implied by their parents.

    A node whose id was already present replaces the earlier one in place, so each id
    appears once. Parents that are not in the graph are allowed (a partial view);
    :meth:`validate` reports them, and the exports draw them as external nodes.
    """

    model_config = ConfigDict(frozen=True)

    nodes: tuple[GraphNode, ...] = ()

    _by_id: dict[UUID, GraphNode] = PrivateAttr(default_factory=dict)

    @field_validator("nodes")
    @classmethod
    def _one_per_id(cls, nodes: tuple[GraphNode, ...]) -> tuple[GraphNode, ...]:
        return tuple({node.id: node for node in nodes}.values())

    def model_post_init(self, context: Any, /) -> None:
        """Index the nodes by id (the traversal functions take a mapping)."""
        self._by_id = {node.id: node for node in self.nodes}

    @classmethod
    def from_sessions(cls, sessions: Iterable[Session]) -> SessionGraph:
        """The graph of ``sessions`` (snapshotted with :meth:`GraphNode.from_session`)."""
        return cls(nodes=tuple(GraphNode.from_session(s) for s in sessions))

    @property
    def by_id(self) -> dict[UUID, GraphNode]:
        """The nodes keyed by id (a fresh dict, in node order)."""
        return dict(self._by_id)

    def __len__(self) -> int:
        return len(self.nodes)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._by_id

    def edges(self) -> list[tuple[UUID, UUID]]:
        """Every ``(producer_id, consumer_id)`` pair, in node then parent order."""
        return list(edge_pairs(self._by_id))

    def roots(self) -> tuple[UUID, ...]:
        """The ids of nodes none of whose parents is in the graph, in node order."""
        return tuple(
            node.id
            for node in self.nodes
            if not any(pid in self._by_id for pid in node.parent_session_ids)
        )

    def missing_parents(self) -> tuple[UUID, ...]:
        """Parent ids named by some node but absent from the graph, in first-use order."""
        missing = (pid for node in self.nodes for pid in node.parent_session_ids)
        return tuple(dict.fromkeys(pid for pid in missing if pid not in self._by_id))

    def ancestors(self, session_id: UUID) -> tuple[UUID, ...]:
        """Ancestors of ``session_id``, nearest first (see :func:`ancestors_bfs`).

        Raises:
            LineageConsistencyError: The id, or a parent on the way up, is not in the graph.
        """
        return ancestors_bfs(self._by_id, session_id)

    def descendants(self, session_id: UUID) -> tuple[UUID, ...]:
        """Descendants of ``session_id``, DFS preorder (see :func:`descendants_dfs_preorder`).

        Raises:
            LineageConsistencyError: The id is not in the graph.
        """
        return descendants_dfs_preorder(self._by_id, session_id)

    # Shadows pydantic's deprecated ``BaseModel.validate`` classmethod: OpenRath's name wins.
    def validate(self) -> None:  # type: ignore[override]
        """Check that every parent is in the graph and there is no cycle.

        Raises:
            LineageConsistencyError: Naming the missing parent, or the ids along the cycle.
        """
        validate_acyclic(self._by_id)

    def union(self, other: SessionGraph) -> SessionGraph:
        """This graph's nodes, then ``other``'s; ``other``'s node wins when ids collide."""
        return SessionGraph(nodes=self.nodes + other.nodes)

    def to_jsonl(self) -> str:
        """One JSON object per node and line, each line ending in a newline (not ASCII-escaped)."""
        return "".join(
            json.dumps(node.to_json_row(), ensure_ascii=False, allow_nan=False) + "\n"
            for node in self.nodes
        )

    def write_jsonl(self, path: str | PathLike[str]) -> None:
        """Write :meth:`to_jsonl` to ``path`` as UTF-8, creating parent directories."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(self.to_jsonl(), encoding="utf-8")

    @classmethod
    def from_jsonl(cls, text: str) -> SessionGraph:
        """Read what :meth:`to_jsonl` wrote (OpenRath rows, without ``agent``/``run_id``, too).

        Raises:
            ValueError: A line is not JSON or not a valid node; the message gives its number.
        """
        nodes: list[GraphNode] = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                nodes.append(GraphNode.model_validate(json.loads(line)))
            except ValueError as exc:  # bad JSON, or a pydantic ValidationError
                raise ValueError(f"session graph JSONL line {number}: {exc}") from exc
        return cls(nodes=tuple(nodes))

    def to_mermaid(self) -> str:
        """A Mermaid ``flowchart TD``: parent --> child, missing parents drawn dashed."""
        return _render.mermaid(self.nodes, self.edges(), self.missing_parents())

    def to_dot(self) -> str:
        """A Graphviz ``digraph`` with the same nodes, labels and edges as :meth:`to_mermaid`."""
        return _render.dot(self.nodes, self.edges(), self.missing_parents())

    def __repr__(self) -> str:
        text = f"SessionGraph(nodes={len(self.nodes)}, edges={len(self.edges())}"
        text += f", roots={len(self.roots())}"
        missing = len(self.missing_parents())
        return text + (f", missing_parents={missing})" if missing else ")")

    def __str__(self) -> str:
        return repr(self)
