"""OpenRath's ``rath.flow.tool``: the tool base class, the built-in tools and their helpers.

Rath's own tool API is :mod:`rath.tools` (``FlowToolCall`` is the same class there); this
module keeps OpenRath's import path and names. OpenRath's stdio MCP adapter is not here: MCP
servers are :mod:`rath.tools.mcp`'s, called durably from workers.
"""

from __future__ import annotations

from rath.errors import ToolNameConflictError
from rath.flow.tool.builtins import (
    FlowToolCodeRun,
    FlowToolCommandRun,
    FlowToolFilesExists,
    FlowToolFilesList,
    FlowToolFilesRead,
    FlowToolFilesWrite,
    global_system_tools,
    merge_tools_for_loop,
    tools_dict_to_schemas,
)
from rath.flow.tool.system_tool import (
    flow_tool_code_run,
    flow_tool_command_run,
    flow_tool_files_exists,
    flow_tool_files_list,
    flow_tool_files_read,
    flow_tool_files_write,
)
from rath.tools import FlowToolCall

__all__ = [
    "FlowToolCall",
    "FlowToolCodeRun",
    "FlowToolCommandRun",
    "FlowToolFilesExists",
    "FlowToolFilesList",
    "FlowToolFilesRead",
    "FlowToolFilesWrite",
    "ToolNameConflictError",
    "flow_tool_code_run",
    "flow_tool_command_run",
    "flow_tool_files_exists",
    "flow_tool_files_list",
    "flow_tool_files_read",
    "flow_tool_files_write",
    "global_system_tools",
    "merge_tools_for_loop",
    "tools_dict_to_schemas",
]
