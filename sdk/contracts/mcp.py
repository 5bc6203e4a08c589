"""The MCP activities' contracts: list a server's tools, and run one MCP tool call."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from rath.contracts._contract import ActivityContract
from rath.contracts.tools import RunToolResult
from rath.tools.mcp._spec import McpServerSpec
from rath.tools.mcp._tools import McpToolList


class McpListArgs(BaseModel):
    """Input of ``rath.mcp.list_tools``."""

    model_config = ConfigDict(frozen=True)

    server: McpServerSpec


class McpCallArgs(BaseModel):
    """Input of ``rath.mcp.call_tool``.

    Attributes:
        server: The server to call.
        assistant: Digest of the assistant row holding the call.
        call_index: Index of the call in that row's ``tool_calls``.
        tool_name: The server's name for the tool (the model may see it prefixed).
        origin_run_id: The run whose history this run started from (its own unless reset),
            which the call's idempotency key names.
    """

    model_config = ConfigDict(frozen=True)

    server: McpServerSpec
    assistant: str
    call_index: int
    tool_name: str
    origin_run_id: str | None = None


LIST_MCP_TOOLS = ActivityContract("rath.mcp.list_tools", McpListArgs, McpToolList)
"""List a server's tools (names, descriptions, JSON-schema parameters)."""
CALL_MCP_TOOL = ActivityContract("rath.mcp.call_tool", McpCallArgs, RunToolResult)
"""Run one MCP tool call and store its TOOL_RESULT row."""
