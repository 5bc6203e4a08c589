"""Traversal over ``Mapping[UUID, carrier]``: ancestors, descendants, edges. See docs/modules.md."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping
from typing import Protocol
from uuid import UUID

from rath.errors import LineageConsistencyError


class LineageCarrier(Protocol):
    """Anything with a session id and its parents' ids (a ``Session`` or a ``GraphNode``)."""

    @property
    def id(self) -> UUID:
        """The session's id."""
        ...

    @property
    def parent_session_ids(self) -> tuple[UUID, ...]:
        """The ids of the sessions it was made from (producers), in order."""
        ...


def _require(by_id: Mapping[UUID, LineageCarrier], session_id: UUID) -> LineageCarrier:
    try:
        return by_id[session_id]
    except KeyError:
        raise LineageConsistencyError(f"session {session_id} is not in the graph") from None


def ancestors_bfs(by_id: Mapping[UUID, LineageCarrier], start_id: UUID) -> tuple[UUID, ...]:
    """Every ancestor of ``start_id``, breadth first (nearest first), each once.

    Raises:
        LineageConsistencyError: ``start_id`` or one of its ancestors' parents is missing.
    """
    seen = {start_id}
    order: list[UUID] = []
    queue = deque([(start_id, pid) for pid in _require(by_id, start_id).parent_session_ids])
    while queue:
        child, pid = queue.popleft()
        if pid in seen:
            continue
        if pid not in by_id:
            raise LineageConsistencyError(
                f"session {child} names parent {pid}, which is not in the graph"
            )
        seen.add(pid)
        order.append(pid)
        queue.extend((pid, grand) for grand in by_id[pid].parent_session_ids)
    return tuple(order)


def descendants_dfs_preorder(
    by_id: Mapping[UUID, LineageCarrier], root_id: UUID
) -> tuple[UUID, ...]:
    """Every descendant of ``root_id``, depth first in preorder (children in mapping order).

    Raises:
        LineageConsistencyError: ``root_id`` is not in ``by_id``.
    """
    _require(by_id, root_id)
    children: dict[UUID, list[UUID]] = {}
    for sid, node in by_id.items():
        for pid in node.parent_session_ids:
            children.setdefault(pid, []).append(sid)
    seen = {root_id}
    order: list[UUID] = []
    stack = list(reversed(children.get(root_id, ())))
    while stack:
        sid = stack.pop()
        if sid in seen:
            continue
        seen.add(sid)
        order.append(sid)
        stack.extend(reversed(children.get(sid, ())))
    return tuple(order)


def validate_acyclic(by_id: Mapping[UUID, LineageCarrier]) -> None:
    """Check that every parent is present and that parents never loop back.

    Raises:
        LineageConsistencyError: Naming the first missing parent (and its child), or the
            ids along a cycle in producer -> consumer order.
    """
    missing = [
        (sid, pid) for sid, n in by_id.items() for pid in n.parent_session_ids if pid not in by_id
    ]
    if missing:
        sid, pid = missing[0]
        more = f" ({len(missing) - 1} more missing)" if len(missing) > 1 else ""
        raise LineageConsistencyError(
            f"session {sid} names parent {pid}, which is not in the graph{more}"
        )
    done: set[UUID] = set()
    for start in by_id:
        if start in done:
            continue
        # Iterative DFS along parent links; `path` is the chain currently on the stack.
        path = [start]
        on_path = {start}
        pending = [iter(by_id[start].parent_session_ids)]
        while pending:
            parent = next(pending[-1], None)
            if parent is None:
                on_path.discard(path[-1])
                done.add(path.pop())
                pending.pop()
            elif parent in on_path:
                cycle = [*path[path.index(parent) :], parent][::-1]
                raise LineageConsistencyError(
                    "lineage cycle: " + " -> ".join(str(s) for s in cycle)
                )
            elif parent not in done:
                path.append(parent)
                on_path.add(parent)
                pending.append(iter(by_id[parent].parent_session_ids))


def edge_pairs(by_id: Mapping[UUID, LineageCarrier]) -> Iterator[tuple[UUID, UUID]]:
    """Yield ``(producer_id, consumer_id)`` for every parent link, in mapping order."""
    for sid, node in by_id.items():
        for pid in node.parent_session_ids:
            yield pid, sid
