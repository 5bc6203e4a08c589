"""Recording lineage: graph mode, the client journal, custom operators. See docs/modules.md."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from rath.session._graph_mode import session_graph_mode
from rath.session.graph._model import SessionGraph
from rath.session.graph._node import GraphNode
from rath.session.graph.kind import LineageKind
from rath.session.session import Session


@dataclass(slots=True, repr=False)
class LineageJournal:
    """The sessions recorded while this journal was active, in first-visit order."""

    visit_order: list[UUID] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, compare=False)
    _seen: set[UUID] = field(default_factory=set, init=False, compare=False)
    _nodes: dict[UUID, GraphNode] = field(default_factory=dict, init=False, compare=False)
    _live: dict[UUID, weakref.ref[Session]] = field(default_factory=dict, init=False, compare=False)
    _order: dict[UUID, None] = field(default_factory=dict, init=False, compare=False)

    def __post_init__(self) -> None:
        given: Any = self.visit_order
        if not isinstance(given, list):  # a list is kept as is: its owner sees the records
            self.visit_order = list(given)
        self._seen = set(self.visit_order)
        self._order = dict.fromkeys(self.visit_order)  # the graph's nodes, visited or not

    def record(
        self,
        session: Session | GraphNode | UUID,
        *,
        agent: str | None = None,
        run_id: str | None = None,
        visit: bool = True,
    ) -> None:
        """Add ``session`` (or refresh it); never waits for a lazy session."""
        if isinstance(session, UUID):
            with self._lock:
                self._visit(session)
            return
        node, ref = self._node_of(session, agent, run_id)
        with self._lock:
            if visit:
                self._visit(node.id)
            self._order.setdefault(node.id)
            self._nodes[node.id] = node
            if ref is None:
                self._live.pop(node.id, None)
            else:
                self._live[node.id] = ref

    def append(self, session_id: UUID) -> LineageJournal:
        """Deprecated OpenRath spelling of :meth:`record`; returns the journal."""
        self.record(session_id)
        return self

    def graph(self) -> SessionGraph:
        """The visited sessions as a graph, re-read from those still alive."""
        known = self._snapshots()
        with self._lock:
            order = list(dict.fromkeys([*self._order, *self.visit_order]))
        return SessionGraph(
            nodes=tuple(
                known.get(sid) or GraphNode(id=sid, lineage_kind=LineageKind.UNKNOWN)
                for sid in order
            )
        )

    def _snapshots(self) -> dict[UUID, GraphNode]:
        """The sessions recorded as sessions or nodes, refreshed from those still alive."""
        with self._lock:
            recorded = [(node, self._live.get(sid)) for sid, node in self._nodes.items()]
        fresh: dict[UUID, GraphNode] = {}
        for node, ref in recorded:
            session = ref() if ref is not None else None
            fresh[node.id] = (
                node
                if session is None
                else GraphNode.from_session(session, agent=node.agent, run_id=node.run_id)
            )
        with self._lock:
            for sid, node in fresh.items():
                if sid in self._nodes:
                    self._nodes[sid] = node
        return fresh

    def _node_of(
        self, session: Session | GraphNode, agent: str | None, run_id: str | None
    ) -> tuple[GraphNode, weakref.ref[Session] | None]:
        if isinstance(session, GraphNode):
            return session, None
        earlier = self._nodes.get(session.id)
        if earlier is not None:
            agent = agent if agent is not None else earlier.agent
            run_id = run_id if run_id is not None else earlier.run_id
        return GraphNode.from_session(session, agent=agent, run_id=run_id), weakref.ref(session)

    def _visit(self, session_id: UUID) -> None:
        # Called with the lock held.
        if session_id not in self._seen:
            self._seen.add(session_id)
            self.visit_order.append(session_id)
        self._order.setdefault(session_id)

    def __len__(self) -> int:
        return len(self._seen)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._seen

    def __repr__(self) -> str:
        return f"LineageJournal(sessions={len(self)})"


_ACTIVE: ContextVar[LineageJournal | None] = ContextVar("rath.lineage_journal", default=None)


@contextmanager
def lineage_journal_tracking(*, journal: LineageJournal | None = None) -> Iterator[LineageJournal]:
    """Record every session made inside the block into a journal (still readable after)."""
    active = journal if journal is not None else LineageJournal()
    token = _ACTIVE.set(active)
    try:
        yield active
    finally:
        _ACTIVE.reset(token)


def lineage_journal_optional() -> LineageJournal | None:
    """The active journal, or ``None`` outside :func:`lineage_journal_tracking`."""
    return _ACTIVE.get()


def record_session(
    session: Session, *, agent: str | None = None, inputs: Iterable[Session] = ()
) -> None:
    """Record ``session`` in the active journal, if any; a no-op otherwise. Never waits."""
    journal = _ACTIVE.get()
    if journal is None or not session_graph_mode():
        return
    for source in inputs:
        if source.id not in journal:
            journal.record(source, visit=False)
    journal.record(session, agent=agent)


class LineageRecorder:
    """Stamps sessions made by custom operators, as Rath's own operators do."""

    @staticmethod
    def stamp_new_session(
        session: object,
        *,
        parent_session_ids: Iterable[UUID],
        lineage_operator: str,
        lineage_kind: LineageKind,
        lineage_extras: Iterable[tuple[str, Any]] = (),
    ) -> None:
        """Write the four lineage fields and record ``session`` in the active journal.

        Raises:
            TypeError: ``session`` is not a :class:`~rath.session.Session`.
        """
        if not isinstance(session, Session):
            raise TypeError(f"stamp_new_session needs a Session, not {type(session).__name__}")
        if not session_graph_mode():
            return
        session.parent_session_ids = tuple(parent_session_ids)
        session.lineage_operator = lineage_operator
        session.lineage_kind = LineageKind(lineage_kind)
        session.lineage_extras = tuple(lineage_extras)
        record_session(session)


@dataclass(frozen=True, slots=True)
class FrozenLineageView:
    """A session's lineage fields, detached from the session."""

    session_id: UUID
    parent_session_ids: tuple[UUID, ...]
    lineage_operator: str
    lineage_kind_str: str
    lineage_extras: tuple[tuple[str, Any], ...]


def lineage_view_dataclass(carrier: Any) -> FrozenLineageView:
    """The lineage of ``carrier`` (a session, or anything with the same fields)."""
    kind = getattr(carrier, "lineage_kind", LineageKind.UNKNOWN)
    return FrozenLineageView(
        session_id=carrier.id,
        parent_session_ids=tuple(carrier.parent_session_ids),
        lineage_operator=getattr(carrier, "lineage_operator", "implicit"),
        lineage_kind_str=str(getattr(kind, "value", kind)),
        lineage_extras=tuple(getattr(carrier, "lineage_extras", ())),
    )
