"""One session graph from the catalog: runs' own graphs, else records. See docs/modules.md."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from uuid import UUID

from rath.llm.chat_response import usage_from_json
from rath.session.graph import GraphNode, SessionGraph
from rath.session.graph.kind import LineageKind
from rath.store.catalog import Catalog, SessionRecord

_KINDS = {kind.value: kind for kind in LineageKind}
_RUN_KINDS = (LineageKind.OP_WORKFLOW.value,)
_LOOP = LineageKind.OP_SESSION_LOOP.value


def record_node(record: SessionRecord) -> GraphNode:
    """A catalog record as a graph node (no rows are read: its chunk count stays unknown)."""
    usage = usage_from_json(record.usage) if record.usage else None
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
    ids = {record.id for record in known}
    # A forward's graph first; then an agent run's, kept when its input was a branch made
    # in Python (a session with no record of its own).
    kept = [r for r in known if r.kind in _RUN_KINDS]
    kept += [r for r in known if r.kind == _LOOP and not set(r.parents) <= ids]
    for record in kept:
        text = catalog.graph(record.id)
        if text is None:
            continue
        for node in SessionGraph.from_jsonl(text).nodes:
            nodes.setdefault(node.id, node)
    for record in known:
        nodes.setdefault(record.id, record_node(record))
    return SessionGraph(nodes=tuple(nodes.values()))


def lineage_of(graph: SessionGraph, session_id: UUID) -> SessionGraph:
    """``session_id``, its descendants, and their ancestors and its own (in ``graph``'s order)."""
    by_id = graph.by_id
    children: dict[UUID, list[UUID]] = {}
    for node in graph.nodes:
        for parent in node.parent_session_ids:
            children.setdefault(parent, []).append(node.id)

    def parents(sid: UUID) -> tuple[UUID, ...]:
        return by_id[sid].parent_session_ids if sid in by_id else ()

    descendants = _reach([session_id], lambda sid: tuple(children.get(sid, ())))
    keep = _reach(descendants, parents)  # with a later run's own inputs (its prompt)
    return SessionGraph(nodes=tuple(node for node in graph.nodes if node.id in keep))


def _reach(starts: Iterable[UUID], step: Callable[[UUID], tuple[UUID, ...]]) -> set[UUID]:
    """``starts`` and every id ``step`` leads to from them (absent parents end a path)."""
    seen = set(starts)
    todo = list(seen)
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


def models_of(
    catalog: Catalog, record: SessionRecord, records: Iterable[SessionRecord] | None = None
) -> list[str]:
    """The models that made a session: its own, its run's agents', or its source's (a fork)."""
    if record.model is not None:
        return [record.model]
    by_id = {r.id: r for r in (catalog.records() if records is None else records)}
    if record.kind == LineageKind.OP_FORK.value:
        source = by_id.get(record.parents[0]) if record.parents else None
        return models_of(catalog, source, by_id.values()) if source is not None else []
    text = catalog.graph(record.id) if record.kind in _RUN_KINDS else None
    if text is None:
        return []
    agents = (by_id.get(node.id) for node in SessionGraph.from_jsonl(text).nodes)
    return sorted({a.model for a in agents if a is not None and a.model is not None})
