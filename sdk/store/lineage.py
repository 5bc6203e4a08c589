"""One session graph from the catalog: the runs' own graphs where kept, the records otherwise.

A durable forward keeps its session graph beside its output's record (every fork, merge and
agent call of its ``forward``, as ``run_graph`` draws it); an agent run, a fork made by
``rath sessions fork`` or an import has only its record. :func:`catalog_graph` joins both into
one :class:`~rath.session.graph.SessionGraph`, so the CLI draws what the API draws: the nodes
of the kept graphs first (in their order, their node winning over a record of the same id),
then the records no kept graph names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from uuid import UUID

from rath.llm import TokenUsage
from rath.session.graph import GraphNode, SessionGraph
from rath.session.graph.kind import LineageKind
from rath.store.catalog import Catalog, SessionRecord

_KINDS = {kind.value: kind for kind in LineageKind}
_RUN_KINDS = (LineageKind.OP_WORKFLOW.value,)


def record_node(record: SessionRecord) -> GraphNode:
    """A catalog record as a graph node (no rows are read: its chunk count stays unknown)."""
    usage = TokenUsage.model_validate(record.usage) if record.usage else None
    return GraphNode(
        id=record.id,
        parent_session_ids=record.parents,
        lineage_kind=_KINDS.get(record.kind, LineageKind.UNKNOWN),
        lineage_operator=record.operator,
        lineage_extras=tuple(record.extras.items()),
        cumulative_usage=usage,
        agent=record.agent,
        run_id=record.workflow_id,
    )


def full_graph(catalog: Catalog, records: Iterable[SessionRecord] | None = None) -> SessionGraph:
    """Every catalogued session, and every session the kept run graphs name."""
    known = catalog.records() if records is None else list(records)
    nodes: dict[UUID, GraphNode] = {}
    for record in known:
        if record.kind not in _RUN_KINDS:
            continue
        text = catalog.graph(record.id)
        if text is None:
            continue
        for node in SessionGraph.from_jsonl(text).nodes:
            nodes.setdefault(node.id, node)
    for record in known:
        nodes.setdefault(record.id, record_node(record))
    return SessionGraph(nodes=tuple(nodes.values()))


def lineage_of(graph: SessionGraph, session_id: UUID) -> SessionGraph:
    """``session_id`` with its ancestors and descendants in ``graph`` (in ``graph``'s order)."""
    by_id = graph.by_id
    children: dict[UUID, list[UUID]] = {}
    for node in graph.nodes:
        for parent in node.parent_session_ids:
            children.setdefault(parent, []).append(node.id)
    keep = _reach(session_id, lambda sid: by_id[sid].parent_session_ids if sid in by_id else ())
    keep |= _reach(session_id, lambda sid: tuple(children.get(sid, ())))
    return SessionGraph(nodes=tuple(node for node in graph.nodes if node.id in keep))


def _reach(start: UUID, step: Callable[[UUID], tuple[UUID, ...]]) -> set[UUID]:
    """``start`` and every id ``step`` leads to from it (parents absent from a graph end it)."""
    seen = {start}
    todo = [start]
    while todo:
        for nxt in step(todo.pop()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def catalog_graph(
    catalog: Catalog, session_id: UUID, records: Iterable[SessionRecord] | None = None
) -> SessionGraph:
    """The lineage of one session, as the catalog and the kept run graphs know it."""
    return lineage_of(full_graph(catalog, records), session_id)
