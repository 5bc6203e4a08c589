"""OpenRath's ``rath.flow.tool``: tools, built-ins, helpers and the stdio MCP adapter.

Rath's own tool API is :mod:`rath.tools` (``FlowToolCall`` is the same class there, and
durable MCP is :mod:`rath.tools.mcp`); this package keeps OpenRath's import path, names and
submodules (``base``, ``system_tool``, ``tool_table``, ``mcp_adapter``).
"""

from __future__ import annotations

from rath.flow.tool.base import FlowToolCall
from rath.flow.tool.mcp_adapter import (
    MCPClient,
    MCPToolCall,
    mcp_tools_from_config,
    mcp_tools_from_server,
    shared_mcp_loop,
)
from rath.flow.tool.system_tool import (
    FlowToolCodeRun,
    FlowToolCommandRun,
    FlowToolFilesExists,
    FlowToolFilesList,
    FlowToolFilesRead,
    FlowToolFilesWrite,
    flow_tool_code_run,
    flow_tool_command_run,
    flow_tool_files_exists,
    flow_tool_files_list,
    flow_tool_files_read,
    flow_tool_files_write,
    global_system_tools,
)
from rath.flow.tool.tool_table import (
    ToolNameConflictError,
    merge_tools_for_loop,
    tools_dict_to_schemas,
)

__all__ = [
    "FlowToolCall",
    "FlowToolCodeRun",
    "FlowToolCommandRun",
    "FlowToolFilesExists",
    "FlowToolFilesList",
    "FlowToolFilesRead",
    "FlowToolFilesWrite",
    "MCPClient",
    "MCPToolCall",
    "ToolNameConflictError",
    "flow_tool_code_run",
    "flow_tool_command_run",
    "flow_tool_files_exists",
    "flow_tool_files_list",
    "flow_tool_files_read",
    "flow_tool_files_write",
    "global_system_tools",
    "mcp_tools_from_config",
    "mcp_tools_from_server",
    "merge_tools_for_loop",
    "shared_mcp_loop",
    "tools_dict_to_schemas",
]
