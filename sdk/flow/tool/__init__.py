"""OpenRath's ``rath.flow.tool``: tools, built-ins, helpers and the stdio MCP adapter.

Rath's own tool API is :mod:`rath.tools` (``FlowToolCall`` is the same class there, and
durable MCP is :mod:`rath.tools.mcp`); this module keeps OpenRath's import path and names.
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
from rath.flow.tool.mcp_adapter import (
    MCPClient,
    MCPToolCall,
    mcp_tools_from_config,
    mcp_tools_from_server,
    shared_mcp_loop,
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
