"""User tools for tests, importable by worker subprocesses (``tool_app:add``)."""

from __future__ import annotations

from collections.abc import Mapping
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
