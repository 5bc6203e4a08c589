"""OpenRath inventory section 3: the chunk model, two sessions per call, results, lineage."""

from __future__ import annotations

import json
from pathlib import Path

from support import FAST, fake_provider

from rath import flow
from rath.session import ChunkKind, LineageKind, Session, run_session_loop
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply, tool_call_reply


def test_row_payloads_are_openraths(rath_env: Settings, tmp_path: Path) -> None:
    script = [
        tool_call_reply(
            ("write_workspace_file", {"path": "a.txt", "content": "x"}),
            ("workspace_path_exists", {"path": "a.txt"}),
            content="two calls",
        ),
        text_reply("done"),
    ]
    with FakeChatServer(script) as server:
        agent = flow.Agent("Sys.", provider=fake_provider(server), options=FAST)
        out = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        rows = out.chunk_table.rows
    assert [row.kind for row in rows] == [
        ChunkKind.USER,
        ChunkKind.ASSISTANT,
        ChunkKind.TOOL_RESULT,
        ChunkKind.TOOL_RESULT,
        ChunkKind.ASSISTANT,
    ]
    assert rows[0].payload == {"content": "go"}
    calls = rows[1].payload["tool_calls"]
    assert rows[1].payload["content"] == "two calls"
    assert [(c["type"], c["function"]["name"]) for c in calls] == [
        ("function", "write_workspace_file"),
        ("function", "workspace_path_exists"),
    ]
    assert json.loads(calls[0]["function"]["arguments"]) == {"path": "a.txt", "content": "x"}
    # One TOOL_RESULT per call, in the calls' order, each a JSON string body.
    results = [row.payload for row in rows[2:4]]
    assert [(r["tool_call_id"], r["name"]) for r in results] == [
        (calls[0]["id"], "write_workspace_file"),
        (calls[1]["id"], "workspace_path_exists"),
    ]
    assert [json.loads(r["content"]) for r in results] == [{"bytes_written": 1}, {"ok": True}]
    assert rows[4].payload["content"] == "done"


def test_the_agent_session_heads_every_request_but_never_enters_the_output(
    rath_env: Settings,
) -> None:
    with FakeChatServer([text_reply("one"), text_reply("two")]) as server:
        provider = fake_provider(server)
        first = flow.Agent("First prompt.", provider=provider, options=FAST)
        second = flow.Agent("Second prompt.", provider=provider, options=FAST)
        out = second(first(Session.from_user_message("hi")))
        rows = out.chunk_table.rows
        requests = server.requests
    assert [row.payload.get("content") for row in rows] == ["hi", "one", "two"]
    # The second agent saw the first one's transcript under its own system prompt only.
    assert [(m["role"], m["content"]) for m in requests[1].messages] == [
        ("system", "Second prompt."),
        ("user", "hi"),
        ("assistant", "one"),
    ]


def test_a_loops_lineage_and_usage(rath_env: Settings) -> None:
    user = Session.from_user_message("hi")
    agent = Session.from_agent_prompt("Sys.")
    with FakeChatServer([text_reply("a", usage=(7, 3))]) as server:
        out = run_session_loop(user, agent, agent_provider=fake_provider(server), options=FAST)
        out.synchronize()
    assert out.parent_session_ids == (user.id, agent.id)
    assert (out.lineage_kind, out.lineage_operator) == (
        LineageKind.OP_SESSION_LOOP,
        "run_session_loop",
    )
    assert out.cumulative_usage is not None and out.cumulative_usage.total_tokens == 10
    # Usage is the loop's own: a second loop on the output does not inherit it.
    with FakeChatServer([text_reply("b", usage=(1, 1))]) as server:
        again = run_session_loop(out, agent, agent_provider=fake_provider(server), options=FAST)
        again.synchronize()
    assert again.cumulative_usage is not None and again.cumulative_usage.total_tokens == 2


def test_hitting_max_rounds_marks_the_output_truncated(rath_env: Settings, tmp_path: Path) -> None:
    look = ("workspace_path_exists", {"path": "a.txt"})
    with FakeChatServer([tool_call_reply(look), tool_call_reply(look)]) as server:
        out = run_session_loop(
            Session.from_user_message("go").to("local", spec=tmp_path),
            Session.from_agent_prompt("Sys."),
            agent_provider=fake_provider(server),
            options=FAST,
            max_tool_rounds=1,
        )
        out.synchronize()
    assert ("loop.truncated", True) in out.lineage_extras


def test_kinds_print_like_openraths_str_enums() -> None:
    row = Session.from_user_message("hi").chunk_table.rows[0]
    assert str(row.kind) == f"{row.kind}" == "ChunkKind.USER"
    assert row.kind == "user" and row.kind.value == "user"
    assert str(LineageKind.OP_FORK) == "LineageKind.OP_FORK" and LineageKind.OP_FORK == "op_fork"
