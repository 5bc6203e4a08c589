"""OpenRath inventory section 4: when the loop stops, how a round dispatches, usage."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

from support import FAST, fake_provider, tool_bodies
from tool_app import add

from rath import flow
from rath.session import ChunkKind, Session
from rath.session.loop import run_session_loop
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply, tool_call_reply


def test_length_and_content_filter_end_the_loop_like_stop(rath_env: Settings) -> None:
    for reason in ("stop", "length", "content_filter"):
        with FakeChatServer([text_reply("cut", finish_reason=reason)]) as server:
            out = flow.Agent("x", provider=fake_provider(server), options=FAST)(
                Session.from_user_message("go")
            )
            kinds = [row.kind for row in out.chunk_table.rows]
            asked = len(server.requests)
        assert (kinds, asked) == ([ChunkKind.USER, ChunkKind.ASSISTANT], 1), reason


def test_bad_calls_become_bodies_and_the_loop_goes_on(rath_env: Settings, tmp_path: Path) -> None:
    script = [
        tool_call_reply(("run_shell_command", "not json"), ("nonexistent", {})),
        text_reply("recovered"),
    ]
    with FakeChatServer(script) as server:
        out = flow.Agent("x", provider=fake_provider(server), options=FAST)(
            Session.from_user_message("go").to("local", spec=tmp_path)
        )
        bodies = tool_bodies(out)
        last = out.chunk_table.rows[-1]
    assert [body["error_kind"] for body in bodies] == ["invalid_tool_arguments", "unknown_tool"]
    # No raw-arguments ``detail`` (docs/openrath.md): the arguments stay out of history.
    assert "not valid JSON" in bodies[0]["message"]
    assert last.payload["content"] == "recovered"


def test_calls_of_one_round_finish_in_the_calls_order(rath_env: Settings, tmp_path: Path) -> None:
    # A slow shell command and a quick file check run in different lanes; the results are
    # recorded in the order the model asked for them, not the order they finished.
    script = [
        tool_call_reply(
            ("run_shell_command", {"cmd": "sleep 0.3; echo slow"}),
            ("workspace_path_exists", {"path": "nothing"}),
        ),
        text_reply("done"),
    ]
    with FakeChatServer(script) as server:
        out = flow.Agent("x", provider=fake_provider(server), options=FAST)(
            Session.from_user_message("go").to("local", spec=tmp_path)
        )
        results = out.rows_of_kind(ChunkKind.TOOL_RESULT)
    assert [row.payload["name"] for row in results] == [
        "run_shell_command",
        "workspace_path_exists",
    ]
    assert json.loads(results[0].payload["content"])["stdout"] == "slow\n"


def test_usage_sums_the_loops_completions(rath_env: Settings, tmp_path: Path) -> None:
    look = ("workspace_path_exists", {"path": "a"})
    script = [tool_call_reply(look, usage=(10, 2)), text_reply("done", usage=(20, 3))]
    with FakeChatServer(script) as server:
        out = flow.Agent("x", provider=fake_provider(server), options=FAST)(
            Session.from_user_message("go").to("local", spec=tmp_path)
        )
        usage = out.cumulative_usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (30, 5, 35)


def test_the_durable_loop_sends_tools_as_openrath_does(rath_env: Settings, tmp_path: Path) -> None:
    # Issue 29 item 10: sorted by name (user tools among the built-ins), no additionalProperties.
    with FakeChatServer([text_reply("ok")]) as server:
        agent = flow.Agent("x", provider=fake_provider(server), tools=[add], options=FAST)
        agent(Session.from_user_message("go").to("local", spec=tmp_path)).synchronize()
        tools = server.requests[0].body["tools"]
    names = [tool["function"]["name"] for tool in tools]
    assert names == sorted(names) and "add" in names and "read_workspace_file" in names
    assert "additionalProperties" not in json.dumps(tools)


def test_the_tools_parameter_documents_flow_tool_calls() -> None:
    annotation = inspect.signature(run_session_loop).parameters["tools"].annotation
    assert str(annotation).startswith("list[FlowToolCall] |")
