"""rath.flow.tool's stdio MCP adapter against the example echo server (a real subprocess),
directly and as an agent's tool."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from mcp_types import CallToolResult, ImageContent, TextContent
from support import FAST, fake_provider

from rath import flow
from rath.config import ConfigStore
from rath.errors import ConfigEntryNotFoundError
from rath.flow.tool import MCPClient, MCPToolCall, mcp_tools_from_config, mcp_tools_from_server
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply, tool_call_reply
from rath.tools.mcp.adapter import flatten_result

ECHO = [
    sys.executable,
    str(Path(__file__).resolve().parents[3] / "examples" / "mcp_echo_server.py"),
]


def test_list_and_call_with_a_fresh_server_each_time() -> None:
    client = MCPClient(ECHO)
    (tool,) = client.list_tools()
    assert tool.name == "echo"
    result = client.call_tool("echo", {"text": "hi"})
    assert [block.text for block in result.content if isinstance(block, TextContent)] == ["hi"]
    (echo,) = mcp_tools_from_server(ECHO[0], args=ECHO[1:])
    assert isinstance(echo, MCPToolCall) and not echo.parallel_safe
    assert echo.parameters["properties"]["text"]["type"] == "string"
    assert echo.to_openai_tool()["function"]["name"] == "echo"
    assert echo(None, {"text": "again"}) == {"text": "again"}


def test_results_are_flattened_as_openrath_did() -> None:
    two = CallToolResult(content=[TextContent(text="a"), TextContent(text="b")])
    assert flatten_result(two) == {"text": "a\nb"}
    assert flatten_result(CallToolResult(content=[], structured_content={"n": 1})) == {"n": 1}
    assert flatten_result(CallToolResult(content=[])) == {"ok": True}
    picture = ImageContent(data="aGk=", mime_type="image/png")
    mixed = flatten_result(CallToolResult(content=[TextContent(text="a"), picture]))
    assert mixed["content"][0] == "a" and json.loads(mixed["content"][1])["type"] == "image"


def test_servers_from_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    servers = {"echo": {"command": ECHO}, "other": {"command": ECHO}}
    path.write_text(json.dumps({"mcp": {"default_enabled": ["echo"], "servers": servers}}))
    (tool,) = mcp_tools_from_config(store=ConfigStore(path))
    assert tool.name == "echo"
    path.write_text(json.dumps({"mcp": {"default_enabled": [], "servers": servers}}))
    with pytest.raises(
        ConfigEntryNotFoundError, match=r"requires a server name when mcp\.default_enabled is empty"
    ):
        mcp_tools_from_config(store=ConfigStore(path))
    with pytest.raises(KeyError, match="no MCP server 'nope'"):
        mcp_tools_from_config("nope", store=ConfigStore(path))


def test_an_agent_calls_an_adapted_tool(rath_env: Settings) -> None:
    tools = list(mcp_tools_from_server(ECHO))
    script = [tool_call_reply(("echo", {"text": "from the agent"})), text_reply("Echoed.")]
    with FakeChatServer(script) as server:
        agent = flow.Agent("Use tools.", provider=fake_provider(server), tools=tools, options=FAST)
        out = agent(Session.from_user_message("echo something"))
        out.synchronize()
        second = server.requests[1].body["messages"]
    tool_row = next(m for m in second if m["role"] == "tool")
    assert json.loads(tool_row["content"]) == {"text": "from the agent"}
