"""An agent with MCP tools: listed once per run, each call an activity on the pooled server."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from support import FAST, fake_provider, history_of, tool_bodies
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from rath import flow
from rath.errors import RunFailedError
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply, tool_call_reply
from rath.tools import tool
from rath.tools.mcp import mcp_tools_from_server

SERVER = Path(__file__).resolve().parents[1] / "mcp" / "mcp_test_server.py"


def mcp_server() -> object:
    return mcp_tools_from_server(
        [sys.executable, str(SERVER), "stdio"], prefix="t_", allow=("echo", "add", "fail")
    )


def activity_names(history: object) -> list[str]:
    scheduled = EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    return [
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history.events  # type: ignore[attr-defined]
        if e.event_type == scheduled
    ]


async def test_mcp_tools_are_listed_once_and_called_as_activities(
    rath_env: Settings, client: Client
) -> None:
    script = [
        tool_call_reply(("t_echo", {"text": "hi"}), ("t_add", {"a": 2, "b": 3})),
        tool_call_reply(("t_fail", {"message": "nope"})),
        text_reply("done"),
    ]
    with FakeChatServer(script) as server:
        agent = flow.Agent(
            "Use tools.", provider=fake_provider(server), tools=[mcp_server()], options=FAST
        )
        out = agent(Session.from_user_message("go"))
        await out
        offered = sorted(t["function"]["name"] for t in server.requests[0].body["tools"])
    assert offered == ["t_add", "t_echo", "t_fail"]
    bodies = tool_bodies(out)
    assert bodies[0]["text"] == "hi" and "5" in bodies[1]["text"]
    assert bodies[2]["ok"] is False and bodies[2]["error_kind"] == "mcp_tool_error"
    assert out.run_id is not None
    names = activity_names(await history_of(client, out.run_id))
    assert names.count("rath.mcp.list_tools") == 1  # once per run, kept in workflow state
    assert names.count("rath.mcp.call_tool") == 3
    assert names.count("rath.session.put_tools") == 1
    assert out.chunk_table.rows[-1].payload["content"] == "done"


def test_an_mcp_tool_clashing_with_a_custom_tool_fails_the_run(rath_env: Settings) -> None:
    @tool(name="t_echo")
    def echo(text: str) -> str:
        return text

    with FakeChatServer([text_reply("x")]) as server:
        agent = flow.Agent(
            "x", provider=fake_provider(server), tools=[echo, mcp_server()], options=FAST
        )
        out = agent(Session.from_user_message("go"))
        with pytest.raises(RunFailedError, match="t_echo"):
            out.synchronize()
        assert server.requests == []  # found before any LLM call
