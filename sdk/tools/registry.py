"""The tools a worker process runs (``ToolRegistry``, ``TOOLS``, ``register_tool``)."""

from __future__ import annotations

import threading

from rath.errors import ToolNameConflictError
from rath.tools.base import FlowToolCall, check_tool
from rath.tools.builtins import BUILTIN_TOOLS
from rath.tools.function import FunctionTool
from rath.utils.targets import import_option


class ToolRegistry:
    """The tools a worker process runs, by name (thread-safe)."""

    def __init__(self) -> None:
        self._tools: dict[str, FlowToolCall] = {}
        self._lock = threading.Lock()

    def register(self, candidate: object) -> FlowToolCall:
        """Add a tool; the same tool again is a no-op.

        Raises:
            ToolNameConflictError: Its name is a built-in's, or another tool's.
        """
        made = check_tool(candidate)
        if made.name in BUILTIN_TOOLS:
            raise ToolNameConflictError(f"user tool {made.name!r} shadows a built-in system tool")
        with self._lock:
            known = self._tools.get(made.name)
            if known is not None and not _same_tool(known, made):
                raise ToolNameConflictError(
                    f"two different tools are named {made.name!r}; rename one"
                )
            self._tools.setdefault(made.name, made)
            return self._tools[made.name]

    def get(self, name: str) -> FlowToolCall | None:
        """The tool named ``name``, if registered."""
        with self._lock:
            return self._tools.get(name)

    def names(self) -> tuple[str, ...]:
        """Every registered name, sorted."""
        with self._lock:
            return tuple(sorted(self._tools))


TOOLS = ToolRegistry()
"""This process's registry (what its workers run)."""


def register_tool(candidate: object) -> FlowToolCall:
    """Register a tool with this process's workers (see :class:`ToolRegistry`)."""
    return TOOLS.register(candidate)


def register_tool_target(target: str) -> FlowToolCall:
    """Import ``"package.module:name"`` (a tool or tool class) and register it (``--tools``).

    Raises:
        ConfigError: The target is malformed, cannot be imported, or is not a tool.
    """
    found = import_option("--tools", target, "package.module:name")
    return register_tool(found)


def _same_tool(a: FlowToolCall, b: FlowToolCall) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, FunctionTool) and isinstance(b, FunctionTool):
        return a.function is b.function
    return True
