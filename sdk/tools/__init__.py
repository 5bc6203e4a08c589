"""Tools the model can call.

The six built-ins (:mod:`rath.tools.builtins`), user tools (:class:`FlowToolCall`, :func:`tool`)
and MCP servers' tools (:mod:`rath.tools.mcp`).
"""

from rath.tools.base import FlowToolCall
from rath.tools.bodies import error_body
from rath.tools.builtins import (
    BUILTIN_TOOLS,
    ToolOutcome,
    run_builtin,
    tool_schemas,
    validate_arguments,
)
from rath.tools.context import ToolCallContext, current_tool_call
from rath.tools.function import FunctionTool, tool
from rath.tools.registry import ToolRegistry, register_tool

__all__ = [
    "BUILTIN_TOOLS",
    "FlowToolCall",
    "FunctionTool",
    "ToolCallContext",
    "ToolOutcome",
    "ToolRegistry",
    "current_tool_call",
    "error_body",
    "register_tool",
    "run_builtin",
    "tool",
    "tool_schemas",
    "validate_arguments",
]
