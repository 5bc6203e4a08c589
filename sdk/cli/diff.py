"""``rath sessions diff A B``: where two sessions part, what each did. See docs/modules.md."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import Any

from rath.runtime.session_catalog import load_recorded
from rath.session.branch import count_rounds
from rath.session.chunk import ChunkKind, ChunkRow, format_chunk_row_brief
from rath.store import SessionRecord, current_catalog
from rath.store.lineage import models_of
from rath.store.lookup import find_record

COST_NOTE = "no price table: usage in tokens"
"""What the report says about cost (Rath has no price table for models)."""
_WRITES = {"write_workspace_file": "path"}
_COMMANDS = {"run_shell_command": "cmd", "run_command": "argv"}


def common_prefix(ours: tuple[ChunkRow, ...], theirs: tuple[ChunkRow, ...]) -> int:
    """How many leading rows two transcripts share (compared by digest)."""
    count = 0
    for mine, other in zip(ours, theirs, strict=False):
        if mine.digest() != other.digest():
            break
        count += 1
    return count


def tool_calls(rows: tuple[ChunkRow, ...]) -> list[dict[str, Any]]:
    """Every tool call the assistant rows make: ``{"name", "arguments"}`` (arguments parsed)."""
    calls: list[dict[str, Any]] = []
    for row in rows:
        if row.kind is not ChunkKind.ASSISTANT:
            continue
        for call in row.payload.get("tool_calls") or ():
            function = call.get("function", {})
            raw = function.get("arguments") or "{}"
            try:
                arguments = json.loads(raw) if isinstance(raw, str) else raw
            except ValueError:
                arguments = {"raw": raw}
            calls.append({"name": function.get("name", "?"), "arguments": arguments})
    return calls


def effects(calls: list[dict[str, Any]]) -> dict[str, list[str]]:
    """The files written and commands run by ``calls`` (built-in tools only)."""
    files: list[str] = []
    commands: list[str] = []
    for call in calls:
        arguments = call["arguments"] if isinstance(call["arguments"], dict) else {}
        if call["name"] in _WRITES:
            files.append(str(arguments.get(_WRITES[call["name"]], "?")))
        elif call["name"] in _COMMANDS:
            value = arguments.get(_COMMANDS[call["name"]], arguments.get("command", "?"))
            commands.append(" ".join(map(str, value)) if isinstance(value, list) else str(value))
    return {"files_written": files, "commands_run": commands}


def diff_report(a: SessionRecord, b: SessionRecord) -> dict[str, Any]:
    """The comparison of two catalogued sessions, as JSON-ready data."""
    records = current_catalog().records()
    rows = {side: load_recorded(record).chunk_table.rows for side, record in (("a", a), ("b", b))}
    shared = common_prefix(rows["a"], rows["b"])
    report: dict[str, Any] = {
        "common_rows": shared,
        "common_rounds": count_rounds(rows["a"][:shared]),
        "cost": COST_NOTE,
    }
    for side, record in (("a", a), ("b", b)):
        after = rows[side][shared:]
        calls = tool_calls(after)
        report[side] = {
            "id": str(record.id),
            "agent": record.agent,
            "models": models_of(current_catalog(), record, records),
            "status": record.status,
            "workflow_id": record.workflow_id,
            "rows": len(rows[side]),
            "rounds": count_rounds(rows[side]),
            "usage": record.usage,
            "after": [
                {"index": shared + i, "kind": row.kind.value, "payload": row.payload}
                for i, row in enumerate(after)
            ],
            "tool_calls": calls,
            **effects(calls),
        }
    return report


def diff_command(args: argparse.Namespace) -> int:
    """Print the comparison of two sessions (``--json``: as one JSON object)."""
    records = current_catalog().records()
    report = diff_report(find_record(records, args.a), find_record(records, args.b))
    if args.json:
        print(json.dumps(report, indent=1, ensure_ascii=False))
        return 0
    print("\n".join(diff_text(report)))
    return 0


def diff_text(report: dict[str, Any]) -> list[str]:
    """The report for people."""
    shared = report["common_rows"]
    lines = [_headline(name, report[side]) for side, name in (("a", "A"), ("b", "B"))]
    lines.append(
        f"common prefix: {_count(shared, 'row')} ({_count(report['common_rounds'], 'round')}); "
        + (f"they diverge at row {shared}" if _differ(report) else "no difference")
    )
    for side, mark in (("a", "-"), ("b", "+")):
        after = report[side]["after"]
        lines.append(f"{mark * 3} {side.upper()} after row {shared}: {_count(len(after), 'row')}")
        for row in after:
            parsed = ChunkRow(kind=row["kind"], payload=row["payload"])
            brief = format_chunk_row_brief(row["index"], parsed, max_payload=160)
            lines.append(f"{mark} {brief}")
    lines.append(
        f"usage: A {_tokens(report['a']['usage'])} · B {_tokens(report['b']['usage'])} "
        f"({report['cost']})"
    )
    for side in ("a", "b"):
        data = report[side]
        counted = Counter(call["name"] for call in data["tool_calls"])
        calls = ", ".join(f"{name} x{n}" for name, n in counted.items()) or "none"
        lines.append(
            f"{side.upper()} after the split: tool calls {calls}; files written "
            f"{', '.join(data['files_written']) or 'none'}; commands run "
            f"{'; '.join(data['commands_run']) or 'none'}"
        )
    return lines


def _headline(name: str, side: dict[str, Any]) -> str:
    models = ", ".join(side["models"]) or "-"
    return (
        f"{name} {side['id']}  {side['agent'] or '-'} · model {models} · {side['status']} · "
        f"{_count(side['rows'], 'row')}, {_count(side['rounds'], 'round')} · "
        f"run {side['workflow_id'] or '-'}"
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _differ(report: dict[str, Any]) -> bool:
    return bool(report["a"]["after"] or report["b"]["after"])


def _tokens(usage: dict[str, int]) -> str:
    if not usage:
        return "unknown"
    return (
        f"{usage.get('total_tokens', 0):,} tokens ({usage.get('prompt_tokens', 0):,} in, "
        f"{usage.get('completion_tokens', 0):,} out)"
    )
