"""OpenRath's module path ``rath.flow.tool.mcp_adapter`` (the code: ``rath.tools.mcp.adapter``)."""

from __future__ import annotations

from rath.tools.mcp.adapter import (
    MCPClient,
    MCPToolCall,
    _coerce_input_schema,  # noqa: F401  (this and the next: OpenRath's own tests import them here)
    _flatten_call_result,  # noqa: F401
    flatten_result,
    mcp_tools_from_config,
    mcp_tools_from_server,
    shared_mcp_loop,
)

__all__ = [
    "MCPClient",
    "MCPToolCall",
    "flatten_result",
    "mcp_tools_from_config",
    "mcp_tools_from_server",
    "shared_mcp_loop",
]
