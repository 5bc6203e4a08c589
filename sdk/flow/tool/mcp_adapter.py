"""OpenRath's module path ``rath.flow.tool.mcp_adapter`` (the code: ``rath.tools.mcp.adapter``)."""

from __future__ import annotations

from rath.tools.mcp.adapter import (
    MCPClient,
    MCPToolCall,
    mcp_tools_from_config,
    mcp_tools_from_server,
    shared_mcp_loop,
)

__all__ = [
    "MCPClient",
    "MCPToolCall",
    "mcp_tools_from_config",
    "mcp_tools_from_server",
    "shared_mcp_loop",
]
