"""``rath sessions view ROOT``: one offline HTML page of a lineage. See docs/modules.md."""

from __future__ import annotations

import argparse
import html
import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote
from uuid import UUID

from rath.cli.view_page import PAGE
from rath.errors import RathError
from rath.llm.chat_response import usage_json
from rath.runtime.devserver import server_status
from rath.runtime.session_catalog import load_recorded
from rath.session.branch import count_rounds
from rath.session.chunk import format_chunk_row_brief
from rath.session.graph import GraphNode, SessionGraph
from rath.settings import Settings
from rath.store import SessionRecord, current_catalog
from rath.store.lineage import catalog_graph, models_of
from rath.store.lookup import find_record

MAX_ROWS = 500
"""Rows shown per transcript (the page says how many more there were)."""
_W, _H, _GAP_X, _GAP_Y, _PAD = 210, 58, 30, 56, 20


def view_command(args: argparse.Namespace) -> int:
    """Write the lineage page of ``args.root`` and print where."""
    print(f"wrote {write_lineage_page(args.root, args.output)}")
    return 0


def write_lineage_page(root: str | UUID, path: str | Path | None = None) -> Path:
    """Write the lineage page of the session ``root`` names (an id, a prefix, a workflow id)."""
    records = current_catalog().records()
    record = find_record(records, str(root))
    target = Path(path or f"rath-lineage-{record.id.hex[:8]}.html").resolve()
    target.write_text(lineage_page(record, records), encoding="utf-8")
    return target


def lineage_page(root: SessionRecord, records: list[SessionRecord]) -> str:
    """The HTML of ``root``'s lineage page."""
    graph = catalog_graph(current_catalog(), root.id, records)
    by_id = {r.id: r for r in records}
    ui = ui_address()
    nodes = {str(n.id): _node_data(n, by_id.get(n.id), records, ui) for n in graph.nodes}
    data = {"root": str(root.id), "ui": ui, "nodes": nodes}
    payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    return (
        PAGE.replace("{title}", html.escape(f"Lineage of {root.id}"))
        .replace("{svg}", _svg(graph, nodes, root.id))
        .replace("{data}", payload)
    )


def ui_address() -> str | None:
    """The Temporal Web UI's address: ``RATH_UI_URL``, else the embedded server's."""
    configured = os.environ.get("RATH_UI_URL")
    if configured:
        return configured.rstrip("/")
    settings = Settings.from_env()
    info = server_status(settings.home) if settings.embedded else None
    return info.ui_url.rstrip("/") if info is not None else None


def _node_data(
    node: GraphNode, record: SessionRecord | None, records: list[SessionRecord], ui: str | None
) -> dict[str, Any]:
    settings = Settings.from_env()
    run = record.workflow_id if record is not None else node.run_id
    usage = record.usage if record is not None and record.usage else None
    if usage is None and node.cumulative_usage is not None:
        usage = usage_json(node.cumulative_usage)
    data: dict[str, Any] = {
        "id": str(node.id),
        "short": node.id.hex[:8],
        "kind": node.lineage_kind.value,
        "operator": node.lineage_operator,
        "agent": node.agent or (record.agent if record is not None else None),
        "models": models_of(current_catalog(), record, records) if record is not None else [],
        "status": record.status if record is not None else "inside a run",
        "usage": usage,
        "extras": {str(k): v for k, v in node.lineage_extras}
        | (record.extras if record is not None else {}),
        "parents": [str(p) for p in node.parent_session_ids],
        "run": run,
        "link": None,
        "rows": [],
        "rounds": None,
        "note": "",
    }
    if run is not None and ui is not None:
        data["link"] = f"{ui}/namespaces/{quote(settings.namespace, safe='')}/workflows/{run}"
    if record is None:
        data["note"] = "made inside a run: no transcript of its own in the catalog"
        return data
    try:
        rows = load_recorded(record).chunk_table.rows
    except RathError as exc:
        data["note"] = f"transcript not readable: {exc}"
        return data
    data["rounds"] = count_rounds(rows)
    data["rows"] = [
        {"kind": row.kind.value, "text": format_chunk_row_brief(i, row, max_payload=2000)}
        for i, row in enumerate(rows[:MAX_ROWS])
    ]
    if len(rows) > MAX_ROWS:
        data["note"] = f"{len(rows) - MAX_ROWS} more rows not shown"
    return data


def drawn_edges(graph: SessionGraph) -> list[tuple[UUID, UUID]]:
    """The edges between nodes of ``graph`` (a parent outside it is listed as a fact only)."""
    return [(a, b) for a, b in graph.edges() if a in graph and b in graph]


def _layers(graph: SessionGraph) -> dict[UUID, int]:
    """Each node's depth: the longest path from a root inside the graph."""
    by_id = graph.by_id
    depth: dict[UUID, int] = {}
    for node in graph.nodes:
        depth[node.id] = 0
    for _ in range(len(graph.nodes)):  # at most one pass per node, even with a cycle
        changed = False
        for node in graph.nodes:
            for parent in node.parent_session_ids:
                if parent in by_id and depth[parent] + 1 > depth[node.id]:
                    depth[node.id] = depth[parent] + 1
                    changed = True
        if not changed:
            break
    return depth


def _svg(graph: SessionGraph, nodes: dict[str, dict[str, Any]], root: UUID) -> str:
    depth = _layers(graph)
    rows: dict[int, list[UUID]] = {}
    for node in graph.nodes:
        rows.setdefault(depth[node.id], []).append(node.id)
    where: dict[UUID, tuple[int, int]] = {}
    for level, ids in rows.items():
        for column, sid in enumerate(ids):
            where[sid] = (_PAD + column * (_W + _GAP_X), _PAD + level * (_H + _GAP_Y))
    width = _PAD * 2 + max(len(ids) for ids in rows.values()) * (_W + _GAP_X) if rows else 100
    height = _PAD * 2 + len(rows) * (_H + _GAP_Y)
    parts = [f'<svg id="dag" width="{width}" height="{height}" viewBox="0 0 {width} {height}">']
    for parent, child in drawn_edges(graph):
        (x1, y1), (x2, y2) = where[parent], where[child]
        x1, y1, x2 = x1 + _W // 2, y1 + _H, x2 + _W // 2
        mid = (y1 + y2) // 2
        parts.append(
            f'<path class="edge" data-from="{parent}" data-to="{child}" '
            f'd="M{x1},{y1} C{x1},{mid} {x2},{mid} {x2},{y2}"/>'
        )
    for node in graph.nodes:
        x, y = where[node.id]
        data = nodes[str(node.id)]
        title = data["agent"] or data["operator"]
        tokens = (data["usage"] or {}).get("total_tokens")
        facts = [data["status"]]
        if data["rounds"] is not None:
            facts.append(f"{data['rounds']} round" + ("" if data["rounds"] == 1 else "s"))
        if tokens:
            facts.append(f"{tokens:,} tok")
        css = f"node kind-{html.escape(data['kind'])}" + (" root" if node.id == root else "")
        parts.append(
            f'<g class="{css}" data-id="{node.id}" transform="translate({x},{y})" tabindex="0">'
            f'<rect width="{_W}" height="{_H}" rx="8"/>'
            f'<text x="10" y="20" class="t1">{html.escape(data["short"])} · '
            f"{html.escape(str(title))[:24]}</text>"
            f'<text x="10" y="36" class="t2">{html.escape(data["kind"])}'
            f"{' · ' + html.escape(', '.join(data['models'])) if data['models'] else ''}</text>"
            f'<text x="10" y="51" class="t2">{html.escape(" · ".join(facts))}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)
