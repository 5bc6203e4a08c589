"""MCP servers as tools: stdio, SSE and streamable HTTP, through the official ``mcp`` SDK.

Describe servers with :func:`mcp_tools_from_server` or :func:`mcp_tools_from_config` and pass
the result to an Agent; nothing connects until a worker runs the session. The worker lists a
server's tools once per session (the ``rath.mcp.list_tools`` activity; the list lives in
workflow state) and runs each call as a ``rath.mcp.call_tool`` activity over a connection
pooled per worker (:class:`McpPool`). See ``docs/mcp.md``.
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
