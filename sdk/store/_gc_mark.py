"""GC's mark phase: every chunk reachable from a set of roots. See docs/modules.md."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from rath.session.table_ref import TableRef
from rath.store._trash import trash_key
from rath.store.chunk_store import object_key
from rath.store.objects import ObjectStore


@dataclass
class Marks:
    """What the mark phase found: the live digests, and roots whose node could not be read."""

    live: set[str] = field(default_factory=set)
    missing: list[str] = field(default_factory=list)
    nodes_read: int = 0


def ref_digests(ref: TableRef) -> Iterable[str]:
    """Every digest a ref names directly (its sealed parts and its stored rows)."""
    for part in ref.parts:
        if isinstance(part, str):
            yield part
        else:
            yield from ref_digests(part)
    for row in ref.rows:
        if isinstance(row, str):
            yield row


def mark(
    objects: ObjectStore,
    roots: Iterable[str | TableRef],
    *,
    hints: Iterable[str] = (),
    on_node: Callable[[int], None] | None = None,
) -> Marks:
    """Mark everything reachable from ``roots`` (reading nodes from the store or its trash)."""
    marks = Marks()
    stack: list[tuple[str, bool]] = [(digest, False) for digest in hints]
    for root in roots:
        digests = ref_digests(root) if isinstance(root, TableRef) else (root,)
        stack.extend((digest, True) for digest in digests)
    while stack:
        digest, must_exist = stack.pop()
        if digest in marks.live:
            continue
        marks.live.add(digest)
        node = _read_node(objects, digest, marks if must_exist else None)
        if node is None:
            continue
        stack.extend((part, True) for part in node.get("parts", ()))
        marks.live.update(node.get("rows", ()))
        marks.nodes_read += 1
        if on_node is not None:
            on_node(marks.nodes_read)
    return marks


def _read_node(
    objects: ObjectStore, digest: str, marks: Marks | None
) -> dict[str, list[str]] | None:
    """The node ``digest`` names, or None for a row (or an object that is nowhere)."""
    key = object_key(digest)
    try:
        data = objects.get(key)
    except FileNotFoundError:
        try:
            data = objects.get(trash_key(key))
        except FileNotFoundError:
            if marks is not None:
                marks.missing.append(digest)
            return None
    try:
        value = json.loads(data)
    except ValueError:
        return None
    if isinstance(value, dict) and "parts" in value and "rows" in value:
        return value
    return None
