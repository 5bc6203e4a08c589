"""OpenRath's JSONL lineage export: one session per line, edges implied by the parents."""

from __future__ import annotations

import json
from collections.abc import Iterable
from os import PathLike
from typing import Any

from rath.session.graph._model import write_text
from rath.session.graph._node import GraphNode
from rath.session.graph.recording import LineageJournal
from rath.session.manager import session_registry
from rath.session.session import Session

_OPENRATH_KEYS = (
    "id",
    "parent_session_ids",
    "lineage_operator",
    "lineage_kind",
    "lineage_extras",
    "chunk_count",
    "cumulative_usage",
)


def session_to_jsonl_row(session: Session) -> dict[str, Any]:
    """OpenRath's row for ``session`` (waits for a lazy session, to count its rows)."""
    session.synchronize()
    return _openrath_row(GraphNode.from_session(session))


def export_jsonl_string(sessions: Iterable[Session]) -> str:
    """The sessions' rows, one JSON object per line, each line ending in a newline."""
    return "".join(_line(session_to_jsonl_row(s)) for s in sessions)


def export_jsonl(sessions: Iterable[Session], path: str | PathLike[str]) -> None:
    """Write :func:`export_jsonl_string` to ``path`` (parent directories are created)."""
    write_text(path, export_jsonl_string(sessions))


def export_journal_jsonl(
    journal: LineageJournal, path: str | PathLike[str], *, skip_unknown: bool = True
) -> None:
    """Write the rows of the sessions ``journal`` visited, in visit order.

    Raises:
        KeyError: An unknown id, with ``skip_unknown=False`` (nothing is written).
    """
    snapshots = journal._snapshots()
    lines = []
    for session_id in journal.visit_order:
        live = session_registry().get(session_id)
        if live is not None:
            lines.append(_line(session_to_jsonl_row(live)))
        elif session_id in snapshots:
            lines.append(_line(_openrath_row(snapshots[session_id])))
        elif not skip_unknown:
            raise KeyError(f"session {session_id} is in neither the registry nor the journal")
    write_text(path, "".join(lines))


def _openrath_row(node: GraphNode) -> dict[str, Any]:
    row = node.to_json_row()
    return {key: row[key] for key in _OPENRATH_KEYS}


def _line(row: dict[str, Any]) -> str:
    return json.dumps(row, ensure_ascii=False) + "\n"
