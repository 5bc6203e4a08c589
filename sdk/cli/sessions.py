"""``rath sessions ls|show|export|import|fork|prune|reconcile``: the catalog from the shell.

Reads and writes the catalog and the chunk store that ``RATH_STORE_URL`` (or ``RATH_HOME``)
names, so it works for sessions whose runs Temporal no longer keeps. Records that say
``running`` are checked against Temporal first (:mod:`rath.runtime.reconcile`); no worker is
needed, nor started. Output is for people by default and JSON with ``--json``. ``follow``
and ``gc`` live in their own modules.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import UUID

from rath.cli.gc import parse_duration
from rath.errors import ConfigError, RunNotFoundError
from rath.runtime.reconcile import reconcile
from rath.runtime.runtime import get_runtime
from rath.runtime.session_catalog import load_recorded
from rath.session.chunk import ChunkRow, format_chunk_row_brief
from rath.session.graph import GraphNode, SessionGraph
from rath.session.graph.kind import LineageKind
from rath.session.persistence import SessionWriter, load_session, prune_sessions
from rath.session.persistence.loader import read_session_file
from rath.session.session import Session
from rath.session.table_ref import TableRef
from rath.store import SessionRecord, current_catalog, current_store
from rath.utils.ids import new_id

STATUSES = ("running", "completed", "failed", "cancelled", "terminated", "timed_out", "unknown")


def ls_command(args: argparse.Namespace) -> int:
    """A table of catalogued sessions (filters: agent, status, since, root)."""
    records = _reconciled(current_catalog().records())
    since = datetime.now(UTC) - args.since if args.since else None
    keep = [
        r
        for r in records
        if (args.agent is None or r.agent == args.agent)
        and (args.status is None or r.status == args.status)
        and (since is None or r.created >= since)
        and (args.root is None or args.root in _ancestor_ids(r, records))
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
        body = record.model_dump(mode="json") | {
            "rows": [row.model_dump(mode="json") for row in loaded.chunk_table.rows]
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
        graph = lineage_graph(current_catalog().records(), record.id)
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
    counts = loaded.cumulative_usage
    usage = (
        {
            "prompt_tokens": counts.prompt_tokens,
            "completion_tokens": counts.completion_tokens,
            "total_tokens": counts.total_tokens,
        }
        if counts
        else {}
    )
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
    """A new catalogued session with the same transcript, its parent the given one."""
    record = _record(args.id)
    load_session(record.id)  # the rows must be readable
    fork = SessionRecord(
        id=new_id(),
        parents=(record.id,),
        kind="op_fork",
        operator="rath sessions fork",
        agent=record.agent,
        closed=datetime.now(UTC),
        status="completed",
        usage={},
        root=record.root,
        placement=record.placement,
    )
    current_catalog().put(fork)
    print(fork.id)
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
    """Register ``ls``, ``show``, ``export``, ``import``, ``fork``, ``prune``, ``reconcile``."""
    ls = commands.add_parser("ls", help="list catalogued sessions")
    ls.add_argument("--agent", help="only this agent's")
    ls.add_argument("--status", choices=STATUSES, help="only these")
    ls.add_argument("--since", type=parse_duration, help="only those created this recently (7d)")
    ls.add_argument("--root", type=UUID, help="only those descending from this session")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=ls_command)
    show = commands.add_parser("show", help="a session's transcript, usage and lineage")
    show.add_argument("id", help="a session id")
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=show_command)
    export = commands.add_parser(
        "export", help="a session as jsonl or md, its lineage as mermaid or dot"
    )
    export.add_argument("id")
    export.add_argument("--format", choices=("jsonl", "md", "mermaid", "dot"), default="md")
    export.add_argument("--output", "-o", help="write here (default: stdout; jsonl needs it)")
    export.set_defaults(func=export_command)
    imported = commands.add_parser("import", help="catalog an OpenRath session file")
    imported.add_argument("file")
    imported.set_defaults(func=import_command)
    fork = commands.add_parser("fork", help="a new session with the same transcript")
    fork.add_argument("id")
    fork.set_defaults(func=fork_command)
    prune = commands.add_parser("prune", help="remove old finished sessions")
    prune.add_argument("--older-than", type=parse_duration, required=True, help="e.g. 30d")
    prune.add_argument("--dry-run", action="store_true")
    prune.set_defaults(func=prune_command)
    check = commands.add_parser("reconcile", help="make running records agree with Temporal")
    check.set_defaults(func=reconcile_command)


_KINDS = {kind.value: kind for kind in LineageKind}


def _reconciled(records: list[SessionRecord]) -> list[SessionRecord]:
    """``records`` with those whose runs closed unannounced brought up to date."""
    result = reconcile(current_store(), records)
    if result.note is not None:
        print(result.note, file=sys.stderr)
    return result.apply(records)


def _record(key: str) -> SessionRecord:
    try:
        session_id = UUID(key)
    except ValueError:
        raise ConfigError(f"{key!r} is not a session id (`rath sessions ls` lists them)") from None
    record = current_catalog().get(session_id)
    if record is None:
        raise RunNotFoundError(f"no session {key} in the catalog (`rath sessions ls` lists them)")
    return record


def _node(record: SessionRecord) -> GraphNode:
    return GraphNode(
        id=record.id,
        parent_session_ids=record.parents,
        lineage_kind=_KINDS.get(record.kind, LineageKind.UNKNOWN),
        lineage_operator=record.operator,
        agent=record.agent,
        run_id=record.workflow_id,
    )


def lineage_graph(records: list[SessionRecord], session_id: UUID) -> SessionGraph:
    """The catalogued ancestors and descendants of ``session_id``, as a graph."""
    by_id = {r.id: r for r in records}
    keep = {session_id} | _ancestor_ids(by_id[session_id], records)
    keep |= {r.id for r in records if session_id in _ancestor_ids(r, records)}
    return SessionGraph(nodes=tuple(_node(by_id[i]) for i in sorted(keep, key=str) if i in by_id))


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


def _tree(record: SessionRecord) -> str:
    records = current_catalog().records()
    by_id = {r.id: r for r in records}
    lines = []
    for parent in record.parents:
        known = by_id.get(parent)
        what = f"{known.kind}, {known.agent or '-'}" if known else "not catalogued"
        lines.append(f"  parent {parent} ({what})")
    lines.append(f"  this   {record.id} ({record.kind}, {record.agent or '-'})")
    for child in records:
        if record.id in child.parents:
            lines.append(f"  child  {child.id} ({child.kind}, {child.agent or '-'})")
    return "\n".join(lines)


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
        lineage_kind=_KINDS.get(record.kind, LineageKind.UNKNOWN),
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
