"""The agent loop on Anthropic's wire: tool call, tool result, final answer, end to end."""

from __future__ import annotations

import json
from pathlib import Path

from support import FAST, fake_provider, kinds, tool_bodies
from wires import provider_for

from rath import flow
from rath.session import Session
from rath.settings import Settings
from rath.testing import (
    FakeAnthropicServer,
    FakeChatServer,
    ToolCallSpec,
    text_reply,
    tool_call_reply,
)

KEY = "test-key-anthropic-0123"


def test_tool_round_trip_through_the_loop(rath_env: Settings, tmp_path: Path) -> None:
    script = [
        tool_call_reply(
            ToolCallSpec("write_workspace_file", {"path": "a.txt", "content": "A"}, id="toolu_01"),
            ToolCallSpec("write_workspace_file", {"path": "b.txt", "content": "B"}, id="toolu_02"),
            content="Writing both.",
            usage=(20, 8),
        ),
        tool_call_reply(
            ToolCallSpec("read_workspace_file", {"path": "a.txt"}, id="toolu_03"), usage=(40, 4)
        ),
        text_reply("a.txt says A.", usage=(60, 6)),
    ]
    with FakeAnthropicServer(script, model="claude-fake") as server:
        provider = provider_for("anthropic", server.base_url, api_key=KEY)
        agent = flow.Agent("Use tools.", provider=provider, options=FAST)
        out = agent(Session.from_user_message("write a and b, read a").to("local", spec=tmp_path))
        assert kinds(out) == [
            "user",
            "assistant",
            "tool_result",
            "tool_result",
            "assistant",
            "tool_result",
            "assistant",
        ]
    assert (tmp_path / "a.txt").read_text() == "A" and (tmp_path / "b.txt").read_text() == "B"
    assert tool_bodies(out) == [{"bytes_written": 1}, {"bytes_written": 1}, {"data": "A"}]
    assert out.chunk_table.rows[-1].payload["content"] == "a.txt says A."
    assert out.cumulative_usage is not None
    assert out.cumulative_usage.total_tokens == 138
    # Rath's transcript keeps the model's tool-use ids, in its own (OpenAI) form.
    first = out.chunk_table.rows[1].payload
    assert first["content"] == "Writing both."
    assert [call["id"] for call in first["tool_calls"]] == ["toolu_01", "toolu_02"]
    assert json.loads(first["tool_calls"][0]["function"]["arguments"]) == {
        "path": "a.txt",
        "content": "A",
    }

    opening = server.requests[0]
    assert opening.path == "/v1/messages"
    assert opening.api_key == KEY
    assert opening.headers.get("anthropic-version")
    assert opening.model == "claude-fake"
    assert opening.system == "Use tools."
    assert opening.body["max_tokens"] == 4096
    assert opening.messages == [
        {"role": "user", "content": [{"type": "text", "text": "write a and b, read a"}]}
    ]
    tools = {tool["name"]: tool for tool in opening.tools}
    assert "read_workspace_file" in tools
    assert tools["read_workspace_file"]["input_schema"]["type"] == "object"
    assert all(set(tool) <= {"name", "description", "input_schema"} for tool in opening.tools)

    last = server.requests[2].messages
    assert [m["role"] for m in last] == ["user", "assistant", "user", "assistant", "user"]
    assert last[1]["content"] == [
        {"type": "text", "text": "Writing both."},
        {
            "type": "tool_use",
            "id": "toolu_01",
            "name": "write_workspace_file",
            "input": {"path": "a.txt", "content": "A"},
        },
        {
            "type": "tool_use",
            "id": "toolu_02",
            "name": "write_workspace_file",
            "input": {"path": "b.txt", "content": "B"},
        },
    ]
    results = last[2]["content"]
    assert [(b["type"], b["tool_use_id"]) for b in results] == [
        ("tool_result", "toolu_01"),
        ("tool_result", "toolu_02"),
    ]
    assert json.loads(results[0]["content"]) == {"bytes_written": 1}
    assert last[3]["content"] == [
        {
            "type": "tool_use",
            "id": "toolu_03",
            "name": "read_workspace_file",
            "input": {"path": "a.txt"},
        }
    ]
    assert json.loads(last[4]["content"][0]["content"]) == {"data": "A"}


def test_an_anthropic_agent_answers_an_openai_agents_plan(rath_env: Settings) -> None:
    with (
        FakeChatServer([text_reply("plan: do it")]) as openai_server,
        FakeAnthropicServer([text_reply("done")]) as anthropic_server,
    ):
        planner = flow.Agent(
            "Plan.",
            provider=fake_provider(openai_server, api_key=KEY),
            options=FAST,
        )
        doer = flow.Agent(
            "Do.",
            provider=provider_for("anthropic", anthropic_server.base_url, api_key=KEY),
            options=FAST,
        )
        out = doer(planner(Session.from_user_message("task")))
        assert kinds(out) == ["user", "assistant", "assistant"]
        request = anthropic_server.requests[0]
    assert request.system == "Do."
    # The planner's answer is a finished assistant turn, answered rather than continued.
    assert [(m["role"], m["content"][0]["text"]) for m in request.messages] == [
        ("user", "task"),
        ("assistant", "plan: do it"),
        ("user", "(continue)"),
    ]
