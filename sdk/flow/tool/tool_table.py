"""OpenRath's loop tool table (``rath.flow.tool.tool_table``): user tools merged with the built-ins.

``ToolNameConflictError`` is Rath's (:class:`rath.errors.ToolNameConflictError`, a
``ValueError``), re-exported at OpenRath's path.
"""

from __future__ import annotations

from collections.abc import Mapping

from rath.errors import ToolNameConflictError
from rath.flow.tool.system_tool import global_system_tools
from rath.llm.chat_request import RathLLMFunctionTool
from rath.tools import FlowToolCall

__all__ = ["ToolNameConflictError", "merge_tools_for_loop", "tools_dict_to_schemas"]


def merge_tools_for_loop(user_tools: list[FlowToolCall] | None) -> dict[str, FlowToolCall]:
    """The built-ins plus ``user_tools``, by name.

    Raises:
        ToolNameConflictError: A user tool reuses a built-in's or another user tool's name
            (a ``ValueError``).
    """
    table: dict[str, FlowToolCall] = dict(global_system_tools())
    for tool in user_tools or ():
        if tool.name in table:
            raise ToolNameConflictError(f"user tool {tool.name!r} shadows a built-in system tool")
        table[tool.name] = tool
    return table


def tools_dict_to_schemas(table: Mapping[str, FlowToolCall]) -> tuple[RathLLMFunctionTool, ...]:
    """The tools' function schemas, sorted by name."""
    return tuple(
        RathLLMFunctionTool(
            name=tool.name, parameters=dict(tool.parameters), description=tool.description
        )
        for _, tool in sorted(table.items(), key=lambda item: item[0])
    )
