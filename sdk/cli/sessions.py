"""``rath sessions ls|show|export|import|fork|prune|reconcile``. See docs/modules.md."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any
from uuid import UUID

from rath.cli.diff import diff_command
from rath.cli.gc import parse_duration
from rath.cli.lab import fork_record
from rath.cli.view import view_command
from rath.errors import ConfigError
from rath.llm.chat_response import usage_json
from rath.runtime.reconcile import reconcile, reconcile_noting
from rath.runtime.runtime import get_runtime
from rath.runtime.session_catalog import lineage_kind_of, load_recorded
from rath.session.chunk import ChunkRow, format_chunk_row_brief
from rath.session.graph import GraphNode
from rath.session.persistence import SessionWriter, load_session, prune_sessions
from rath.session.persistence.loader import read_session_file
from rath.session.session import Session
from rath.session.table_ref import TableRef
from rath.store import SessionRecord, current_catalog, current_store
from rath.store.lineage import catalog_graph, full_graph
from rath.store.lookup import find_record

ID_HELP = "a session id, a unique prefix of one (as print(session) shows), or a workflow id"
STATUSES = ("running", "completed", "failed", "cancelled", "terminated", "timed_out", "unknown")


def ls_command(args: argparse.Namespace) -> int:
    """A table of catalogued sessions (filters: agent, status, since, root)."""
    records = _reconciled(current_catalog().records())
    root = find_record(records, args.root).id if args.root else None
    since = datetime.now(UTC) - args.since if args.since else None
    keep = [
        r
        for r in records
        if (args.agent is None or r.agent == args.agent)
        and (args.status is None or r.status == args.status)
        and (since is None or r.created >= since)
        and (root is None or root in _ancestor_ids(r, records))
    ]
    if args.json:
        print(json.dumps([r.model_dump(mode="json") for r in keep], indent=1))
        return 0
    print(f"{'SESSION':36}  {'CREATED (UTC)':19}  {'STATUS':10}  {'KIND':19}  AGENT")
    for r in keep:
        created = r.created.strftime("%Y-%m-%d %H:%M:%S")
        print(f"{r.id!s:36}  {created:19}  {r.status:10}  {r.kind:19}  {r.agent or '-'}")
    print(f"{len(keep)} of {len(records)} sessions", file=sys.stderr)
    return 0


def show_command(args: argparse.Namespace) -> int:
    """The transcript, usage and lineage tree of one session."""
    (record,) = _reconciled([_record(args.id)])
    loaded = load_recorded(record)
    if args.json:
        family = _family(record)
        body = record.model_dump(mode="json") | {
            "rows": [row.model_dump(mode="json") for row in loaded.chunk_table.rows],
            "children": [str(sid) for role, sid, _ in family if role == "child"],
        }
        print(json.dumps(body, indent=1))
        return 0
    print(f"session {record.id}  ({record.kind}, {record.status}, agent {record.agent or '-'})")
    print(f"run {record.workflow_id or '-'}  created {record.created:%Y-%m-%d %H:%M:%S}")
    if record.error:
        label = "error" if record.status == "failed" else "reason"
        print(f"{label}: {' '.join(record.error.split())}")
    for index, row in enumerate(loaded.chunk_table.rows):
        print(format_chunk_row_brief(index, row))
    print(f"usage: {record.usage or 'unknown'}")
    print("lineage:")
    print(_tree(record))
    return 0


def export_command(args: argparse.Namespace) -> int:
    """One session as OpenRath JSONL, Markdown, or its lineage as Mermaid or DOT."""
    record = _record(args.id)
    if args.format in ("mermaid", "dot"):
        catalog = current_catalog()
        graph = catalog_graph(catalog, record.id, catalog.records())
        _emit(args.output, graph.to_mermaid() if args.format == "mermaid" else graph.to_dot())
        return 0
    loaded = load_session(record.id)
    if args.format == "md":
        _emit(args.output, _markdown(record, loaded.chunk_table.rows))
        return 0
    if args.output is None:
        raise ConfigError("rath sessions export --format jsonl needs --output FILE")
    from_rows = _session_value(record)
    with SessionWriter(from_rows, path=Path(args.output)) as writer:
        for index, row in enumerate(loaded.chunk_table.rows):
            writer.write_chunk(index, row)
    print(f"wrote {args.output}")
    return 0


def import_command(args: argparse.Namespace) -> int:
    """Catalog an OpenRath (or Rath) JSONL file as a finished session."""
    loaded = read_session_file(Path(args.file))
    header = loaded.header
    root = current_store().seal(TableRef.inline(*loaded.chunk_table.rows))
    usage = usage_json(loaded.cumulative_usage) if loaded.cumulative_usage else {}
    current_catalog().put(
        SessionRecord(
            id=header.id,
            parents=header.parent_session_ids,
            kind=header.lineage_kind.value,
            operator=header.lineage_operator,
            created=header.created_at,
            closed=datetime.now(UTC),
            status="completed" if loaded.closed else "failed",
            usage=usage,
            root=root,
            error=None if loaded.closed else "imported from a file without a trailer (a crash)",
        )
    )
    print(header.id)
    return 0


def fork_command(args: argparse.Namespace) -> int:
    """A new catalogued session with the transcript (up to round ``--at``); parent: the given."""
    print(fork_record(_record(args.id), args.at).id)
    return 0


def prune_command(args: argparse.Namespace) -> int:
    """Remove sessions older than ``--older-than`` (with ``--dry-run``: list them only)."""
    if args.dry_run:
        cutoff = datetime.now(UTC) - args.older_than
        records = _reconciled(current_catalog().records())
        old = [r for r in records if r.created < cutoff and r.status != "running"]
        for record in old:
            print(f"would remove {record.id} ({record.created:%Y-%m-%d})")
        print(f"{len(old)} sessions would go", file=sys.stderr)
        return 0
    pruned = prune_sessions(older_than=args.older_than)
    for session_id in pruned:
        print(f"removed {session_id}")
    note = "their chunks go with `rath sessions gc`"
    print(f"{len(pruned)} sessions removed ({note})", file=sys.stderr)
    return 0


def reconcile_command(args: argparse.Namespace) -> int:
    """Check every record that says ``running`` (or ``unknown``) against Temporal."""
    result = reconcile(current_store(), recheck_unknown=True)
    if result.note is not None:
        print(result.note, file=sys.stderr)
        return 1
    for record in result.changed:
        why = f": {' '.join(record.error.split())}" if record.error else ""
        print(f"{record.id}  {record.workflow_id}  {record.status}{why}")
    print(f"{len(result.changed)} of {result.checked} open records updated", file=sys.stderr)
    return 0


def add_sessions_arguments(commands: Any) -> None:
    """Register ``ls``, ``show``, ``export``, ``import``, ``fork``, ``prune``, ``reconcile``.

    Their help lines are in :mod:`rath.cli`, whose ``rath sessions --help`` lists them.
    """
    ls = commands.add_parser("ls")
    ls.add_argument("--agent", help="only this agent's")
    ls.add_argument("--status", choices=STATUSES, help="only these")
    ls.add_argument("--since", type=parse_duration, help="only those created this recently (7d)")
    ls.add_argument("--root", help="only this session and those descending from it")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=ls_command)
    show = commands.add_parser("show")
    show.add_argument("id", help=ID_HELP)
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=show_command)
    export = commands.add_parser("export")
    export.add_argument("id", help=ID_HELP)
    export.add_argument("--format", choices=("jsonl", "md", "mermaid", "dot"), default="md")
    export.add_argument("--output", "-o", help="write here (default: stdout; jsonl needs it)")
    export.set_defaults(func=export_command)
    imported = commands.add_parser("import")
    imported.add_argument("file")
    imported.set_defaults(func=import_command)
    fork = commands.add_parser("fork")
    fork.add_argument("id", help=ID_HELP)
    fork.add_argument(
        "--at", type=int, metavar="K", help="branch at round K (0: before the first answer)"
    )
    fork.set_defaults(func=fork_command)
    diff = commands.add_parser("diff")
    diff.add_argument("a", help=ID_HELP)
    diff.add_argument("b", help=ID_HELP)
    diff.add_argument("--json", action="store_true")
    diff.set_defaults(func=diff_command)
    view = commands.add_parser("view")
    view.add_argument("root", help=ID_HELP)
    view.add_argument("--output", "-o", help="the file (default: ./rath-lineage-ID.html)")
    view.set_defaults(func=view_command)
    prune = commands.add_parser("prune")
    prune.add_argument("--older-than", type=parse_duration, required=True, help="e.g. 30d")
    prune.add_argument("--dry-run", action="store_true")
    prune.set_defaults(func=prune_command)
    check = commands.add_parser("reconcile")
    check.set_defaults(func=reconcile_command)


def _reconciled(records: list[SessionRecord]) -> list[SessionRecord]:
    """``records`` with those whose runs closed unannounced brought up to date."""
    result = reconcile_noting(current_store(), records, note=partial(print, file=sys.stderr))
    return result.apply(records)


def _record(key: str) -> SessionRecord:
    """The record ``key`` names: a full id, a unique prefix, or a run's workflow id."""
    return find_record(current_catalog().records(), key)


def _ancestor_ids(record: SessionRecord, records: list[SessionRecord]) -> set[UUID]:
    by_id = {r.id: r for r in records}
    seen: set[UUID] = set()
    todo = list(record.parents)
    while todo:
        parent = todo.pop()
        if parent not in seen:
            seen.add(parent)
            if parent in by_id:
                todo.extend(by_id[parent].parents)
    return seen


def _family(record: SessionRecord) -> list[tuple[str, UUID, str]]:
    """``(parent|child, id, what it is)`` for each parent then each child of ``record``."""
    records = current_catalog().records()
    by_id = {r.id: r for r in records}
    graph = full_graph(current_catalog(), records)
    nodes = graph.by_id
    this = nodes.get(record.id)
    parents = this.parent_session_ids if this is not None else record.parents
    family = [("parent", parent, _what(parent, by_id, nodes)) for parent in parents]
    family += [
        ("child", node.id, _what(node.id, by_id, nodes))
        for node in graph.nodes
        if record.id in node.parent_session_ids
    ]
    return family


def _tree(record: SessionRecord) -> str:
    family = _family(record)
    lines = [f"  parent {sid} ({what})" for role, sid, what in family if role == "parent"]
    lines.append(f"  this   {record.id} ({record.kind}, {record.agent or '-'})")
    lines += [f"  child  {sid} ({what})" for role, sid, what in family if role == "child"]
    return "\n".join(lines)


def _what(session_id: UUID, by_id: dict[UUID, SessionRecord], nodes: dict[UUID, GraphNode]) -> str:
    known = by_id.get(session_id)
    if known is not None:
        return f"{known.kind}, {known.agent or '-'}"
    node = nodes.get(session_id)
    if node is not None:
        return f"{node.lineage_kind.value}, {node.agent or '-'}, inside a run"
    return "not catalogued"


def _markdown(record: SessionRecord, rows: tuple[ChunkRow, ...]) -> str:
    parts = [
        f"# Session {record.id}",
        "",
        f"{record.kind} · {record.status} · {record.agent or '-'}",
        "",
    ]
    for row in rows:
        payload = row.payload
        text = payload.get("content") or ""
        if payload.get("tool_calls"):
            calls = ", ".join(c["function"]["name"] for c in payload["tool_calls"])
            text = f"{text}\n\n*calls: {calls}*".strip()
        parts += [f"## {row.kind.value}", "", str(text), ""]
    return "\n".join(parts)


def _session_value(record: SessionRecord) -> Session:
    return Session(
        id=record.id,
        parent_session_ids=record.parents,
        lineage_kind=lineage_kind_of(record),
        lineage_operator=record.operator,
    )


def _emit(output: str | None, text: str) -> None:
    if output is None:
        print(text)
    else:
        Path(output).write_text(text + "\n", encoding="utf-8")
        print(f"wrote {output}")


def run_sessions_command(name: str, rest: list[str]) -> int:
    """Parse and run ``rath sessions NAME REST...`` (the ``rath`` parser hands these over)."""
    parser = argparse.ArgumentParser(prog="rath sessions")
    add_sessions_arguments(parser.add_subparsers(dest="sessions_name", required=True))
    args = parser.parse_args([name, *rest])
    get_runtime().read_only()  # these commands read runs; they never run one
    code: int = args.func(args)
    return code
