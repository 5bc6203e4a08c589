"""MCP servers as tools: stdio, SSE and streamable HTTP, through the official ``mcp`` SDK.

See docs/mcp.md.
"""

from rath.contracts.mcp import (
    McpServerSpec,
    McpToolBinding,
    McpToolInfo,
    McpToolList,
    McpTools,
    McpTransport,
    bind_mcp_tools,
)
from rath.tools.mcp._config import mcp_tools_from_config, mcp_tools_from_server
from rath.tools.mcp._errors import McpError
from rath.tools.mcp._pool import McpPool
from rath.tools.mcp._result import DEFAULT_MAX_OUTPUT_BYTES, render_result

__all__ = [
    "DEFAULT_MAX_OUTPUT_BYTES",
    "McpError",
    "McpPool",
    "McpServerSpec",
    "McpToolBinding",
    "McpToolInfo",
    "McpToolList",
    "McpTools",
    "McpTransport",
    "bind_mcp_tools",
    "mcp_tools_from_config",
    "mcp_tools_from_server",
    "render_result",
]
