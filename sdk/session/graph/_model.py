"""``SessionGraph``: a lineage snapshot of many sessions, its traversal and JSONL form."""

from __future__ import annotations

import json
from collections.abc import Iterable
from os import PathLike
from pathlib import Path
from typing import Any
from uuid import UUID

from pydantic import BaseModel, ConfigDict, PrivateAttr, field_validator

from rath.session.graph import _render
from rath.session.graph._node import GraphNode
from rath.session.graph.traverse import (
    ancestors_bfs,
    descendants_dfs_preorder,
    edge_pairs,
    validate_acyclic,
)
from rath.session.session import Session


class SessionGraph(BaseModel):
    """A lineage DAG: nodes in insertion order, edges implied by their parents."""

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
        write_text(path, self.to_jsonl())

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


def write_text(path: str | PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` as UTF-8, creating parent directories (the JSONL exports)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
