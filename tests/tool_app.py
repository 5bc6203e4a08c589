"""User tools for tests, importable by worker subprocesses (``tool_app:add``)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rath.tools import FlowToolCall, tool


@tool(parallel_safe=True)
def add(a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


@tool
def explode(reason: str) -> str:
    """Always fails."""
    raise RuntimeError(f"boom: {reason}")


class Shout(FlowToolCall):
    """A class-based tool that sees the session it runs in."""

    name = "shout"
    description = "Upper-case a text; says how many rows the session had."
    parameters: Mapping[str, Any] = {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    }

    def __call__(self, session: Any, arguments: Mapping[str, Any]) -> Any:
        return {"text": arguments["text"].upper(), "rows": len(session.chunk_table.rows)}


@tool
def whoami() -> str:
    """The id of the worker running this call."""
    import os

    return os.environ.get("RATH_WORKER_ID", "?")


HOLD_SECONDS = 60.0


def _hold(target: Path) -> None:
    """Wait (bounded) for ``<target>.go``: a crash test kills the worker while a call waits."""
    gate = target.with_name(target.name + ".go")
    deadline = time.monotonic() + HOLD_SECONDS
    while not gate.exists() and time.monotonic() < deadline:
        time.sleep(0.02)  # polling a file another process creates, bounded by the deadline


@tool
def append_line(path: str, text: str) -> str:
    """Append a line to a file: an effect that must not happen twice."""
    target = Path(path)
    with target.open("a") as handle:
        handle.write(text + "\n")
    _hold(target)
    return "appended"


@tool
def append_once(path: str, text: str, idempotency_key: str) -> str:
    """Append a line unless this call already did (the key makes it safe to repeat)."""
    target = Path(path)
    with target.with_name(target.name + ".attempts").open("a") as handle:
        handle.write(idempotency_key + "\n")
    lines = target.read_text().splitlines() if target.exists() else []
    if not any(line.startswith(idempotency_key + " ") for line in lines):
        with target.open("a") as handle:
            handle.write(f"{idempotency_key} {text}\n")
    _hold(target)
    return "appended"


SLOW_SECONDS = 0.4


@tool
def slow_append(path: str, text: str) -> str:
    """Append a line to a file, then take a while (so a chaos test's kills land mid-call)."""
    with Path(path).open("a") as handle:
        handle.write(text + "\n")
    time.sleep(SLOW_SECONDS)  # the tool's own work, not a synchronisation
    return "appended"
