"""Client-side lineage journal: the sessions made inside a ``lineage_journal_tracking`` block."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING
from uuid import UUID

from rath.session._graph_mode import session_graph_mode
from rath.session._lineage import LineageKind
from rath.session.graph._model import SessionGraph
from rath.session.graph._node import GraphNode

if TYPE_CHECKING:
    from rath.session._session import Session


class LineageJournal:
    """The sessions recorded while this journal was active, in first-visit order.

    Recording a session again refreshes its snapshot in place. The journal holds sessions
    weakly, so it never keeps a transcript alive; :meth:`graph` re-reads the ones that still
    exist (without waiting), so a lazy run recorded while pending shows its chunk count and
    usage once it has been synchronised.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._nodes: dict[UUID, GraphNode] = {}
        self._live: dict[UUID, weakref.ref[Session]] = {}

    @property
    def visit_order(self) -> tuple[UUID, ...]:
        """The recorded session ids, each once, in the order first recorded."""
        with self._lock:
            return tuple(self._nodes)

    def record(
        self,
        session: Session | GraphNode | UUID,
        *,
        agent: str | None = None,
        run_id: str | None = None,
    ) -> None:
        """Add ``session`` (or refresh it); never waits for a lazy session.

        Args:
            session: A session, an already built node, or (as in OpenRath) a session id,
                kept as a node of unknown lineage unless the session is recorded later.
            agent: The agent that produced it; kept from an earlier record if omitted.
            run_id: Its run's workflow id; kept from an earlier record if omitted.
        """
        if isinstance(session, UUID):
            if session in self._nodes:
                return
            node, ref = GraphNode(id=session, lineage_kind=LineageKind.UNKNOWN), None
        elif isinstance(session, GraphNode):
            node, ref = session, None
        else:
            earlier = self._nodes.get(session.id)
            if earlier is not None:
                agent = agent if agent is not None else earlier.agent
                run_id = run_id if run_id is not None else earlier.run_id
            node = GraphNode.from_session(session, agent=agent, run_id=run_id)
            ref = weakref.ref(session)
        with self._lock:
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
        """The recorded sessions as a graph, re-read from those still alive.

        The fresh snapshots are kept, so a session collected later keeps its last state.
        """
        with self._lock:
            recorded = [(node, self._live.get(sid)) for sid, node in self._nodes.items()]
        nodes = []
        for node, ref in recorded:
            session = ref() if ref is not None else None
            nodes.append(
                node
                if session is None
                else GraphNode.from_session(session, agent=node.agent, run_id=node.run_id)
            )
        with self._lock:
            for fresh in nodes:
                if fresh.id in self._nodes:
                    self._nodes[fresh.id] = fresh
        return SessionGraph(nodes=tuple(nodes))

    def __len__(self) -> int:
        return len(self._nodes)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._nodes

    def __repr__(self) -> str:
        return f"LineageJournal(sessions={len(self)})"


_ACTIVE: ContextVar[LineageJournal | None] = ContextVar("rath.lineage_journal", default=None)


@contextmanager
def lineage_journal_tracking(journal: LineageJournal | None = None) -> Iterator[LineageJournal]:
    """Record every session made inside the block into a journal (still readable after).

    Args:
        journal: A journal to add to; a new one by default.

    Yields:
        The active journal. An inner block's journal replaces the outer one until it ends.
    """
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
    """Record ``session`` in the active journal, if any; a no-op otherwise. Never waits.

    Args:
        session: A session just made by an operation (fork, merge, a run's output...).
        agent: The agent that produced it, if any.
        inputs: The sessions it was made from. Those not yet in the journal are recorded
            first, so unstamped roots such as ``Session.from_user_message(...)`` are not
            missing from the journal's graph.
    """
    journal = _ACTIVE.get()
    if journal is None or not session_graph_mode():
        return
    for source in inputs:
        if source.id not in journal:
            journal.record(source)
    journal.record(session, agent=agent)
