"""The agent loop end to end on a real Temporal dev server with a fake OpenAI server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import FAST, fake_provider, history_of, kinds, tool_bodies
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from rath import flow
from rath.errors import RunFailedError
from rath.session import LineageKind, Session
from rath.settings import Settings
from rath.testing import FakeChatServer, error_reply, text_reply, tool_call_reply


def test_multi_round_tools_write_then_read(rath_env: Settings, tmp_path: Path) -> None:
    script = [
        tool_call_reply(("write_workspace_file", {"path": "notes.txt", "content": "hi"})),
        tool_call_reply(("read_workspace_file", {"path": "notes.txt"})),
        text_reply("The file says hi."),
    ]
    with FakeChatServer(script) as server:
        agent = flow.Agent("Use tools.", provider=fake_provider(server), options=FAST)
        user = Session.from_user_message("write and read").to("local", spec=tmp_path)
        out = agent(user)
        assert kinds(out) == [
            "user",
            "assistant",
            "tool_result",
            "assistant",
            "tool_result",
            "assistant",
        ]
    assert (tmp_path / "notes.txt").read_text() == "hi"
    assert tool_bodies(out) == [{"bytes_written": 2}, {"data": "hi"}]
    assert out.chunk_table.rows[-1].payload["content"] == "The file says hi."
    assert out.parent_session_ids == (user.id, agent.agent.agent_session.id)
    assert out.lineage_kind is LineageKind.OP_SESSION_LOOP
    assert out.cumulative_usage is not None and out.cumulative_usage.total_tokens == 45
    # The model saw the system prompt first, then the transcript; tools were offered.
    first = server.requests[0]
    assert first.messages[0] == {"role": "system", "content": "Use tools."}
    assert {tool["function"]["name"] for tool in first.tools} >= {"write_workspace_file"}
    third = server.requests[2]
    assert [m["role"] for m in third.messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
    ]


def test_call_returns_before_the_model_answers(rath_env: Settings, tmp_path: Path) -> None:
    import threading

    gate = threading.Event()
    from rath.testing import gated

    with FakeChatServer([gated(text_reply("late"), gate)]) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=FAST)
        out = agent(Session.from_user_message("hi"))
        server.wait_for_requests(1)
        assert out.pending  # the call returned while the model is still answering
        gate.set()
        assert kinds(out) == ["user", "assistant"]
        assert not out.pending


def test_independent_calls_run_concurrently(rath_env: Settings) -> None:
    import threading

    from rath.testing import gated

    gate = threading.Event()
    with FakeChatServer([gated(text_reply("a"), gate), gated(text_reply("b"), gate)]) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=FAST)
        first = agent(Session.from_user_message("one"))
        second = agent(Session.from_user_message("two"))
        # Both requests reach the model before either is answered.
        server.wait_for_requests(2)
        gate.set()
        answers = {
            first.chunk_table.rows[-1].payload["content"],
            second.chunk_table.rows[-1].payload["content"],
        }
    assert answers == {"a", "b"}


def test_chained_agents_see_the_whole_transcript(rath_env: Settings) -> None:
    with FakeChatServer([text_reply("plan"), text_reply("done")]) as server:
        planner = flow.Agent("Plan.", provider=fake_provider(server), options=FAST)
        doer = flow.Agent("Do.", provider=fake_provider(server), options=FAST)
        out = doer(planner(Session.from_user_message("task")))
        assert kinds(out) == ["user", "assistant", "assistant"]
        assert [m["content"] for m in server.requests[1].messages] == ["Do.", "task", "plan"]


def test_error_bodies_reach_the_model_and_the_loop_goes_on(
    rath_env: Settings, tmp_path: Path
) -> None:
    script = [
        tool_call_reply(
            ("no_such_tool", {}),
            ("read_workspace_file", "{not json"),
            ("read_workspace_file", {"path": "../outside.txt"}),
            ("read_workspace_file", {}),
        ),
        text_reply("ok"),
    ]
    with FakeChatServer(script) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=FAST)
        out = agent(Session.from_user_message("go").to("local", spec=tmp_path / "ws"))
        bodies = tool_bodies(out)
    assert [b["error_kind"] for b in bodies] == [
        "unknown_tool",
        "invalid_tool_arguments",
        "path_outside_workspace",
        "invalid_tool_arguments",
    ]
    assert all(b["ok"] is False for b in bodies)
    assert kinds(out)[-1] == "assistant"
    # The model was told which tool was unknown.
    tool_messages = [m for m in server.requests[1].messages if m["role"] == "tool"]
    assert "no_such_tool" in json.loads(tool_messages[0]["content"])["message"]


async def test_a_workspace_that_became_a_file_fails_the_call_once(
    rath_env: Settings, client: Client, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    user = Session.from_user_message("go").to("local", spec=workspace)
    workspace.write_text("x")  # after .to(), which refuses a file: only the worker can tell
    script = [tool_call_reply(("list_workspace_files", {"path": "."})), text_reply("ok")]
    with FakeChatServer(script) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=FAST)
        out = agent(user)
        (body,) = tool_bodies(out)
    assert body["error_kind"] == "tool_execution_exception"
    assert f"workspace '{workspace}' is, or is inside, a file" in body["message"]
    assert kinds(out)[-1] == "assistant"
    assert out.run_id is not None
    history = await history_of(client, out.run_id)
    (failed,) = [
        e.activity_task_failed_event_attributes
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED
    ]
    started = history.events[failed.started_event_id - 1].activity_task_started_event_attributes
    assert started.attempt == 1  # permanent: not retried


@pytest.mark.parametrize(
    "limit",
    [{"max_tool_rounds": 2}, {"options": FAST.model_copy(update={"max_tool_rounds": 2})}],
    ids=["argument", "options"],
)
def test_max_tool_rounds_truncates(
    rath_env: Settings, tmp_path: Path, limit: dict[str, Any]
) -> None:
    call = tool_call_reply(("workspace_path_exists", {"path": "x"}))
    with FakeChatServer([call, call, call]) as server:
        agent = flow.Agent("x", provider=fake_provider(server), **({"options": FAST} | limit))
        out = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        assert kinds(out) == ["user", "assistant", "tool_result", "assistant", "tool_result"]
        assert ("loop.truncated", True) in out.lineage_extras
        assert len(server.requests) == 2


def test_terminal_http_error_fails_the_run_with_its_workflow_id(rath_env: Settings) -> None:
    with FakeChatServer([error_reply(400, "bad request: messages")]) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=FAST)
        out = agent(Session.from_user_message("go"))
        with pytest.raises(RunFailedError) as info:
            out.synchronize()
        assert len(server.requests) == 1  # 4xx is not retried
    assert info.value.workflow_id == out.run_id
    assert out.run_id is not None and out.run_id in str(info.value)
    assert "HTTP 400" in str(info.value)
    with pytest.raises(RunFailedError):
        print(out)  # a script that prints a failed session exits non-zero
    assert "error=RunFailedError" in repr(out)  # repr stays readable for debugging


def test_transient_http_errors_are_retried(
    rath_env: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    script = [error_reply(500, "boom"), error_reply(429, "slow down"), text_reply("fine")]
    with FakeChatServer(script) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=FAST)
        out = agent(Session.from_user_message("go"))
        assert kinds(out) == ["user", "assistant"]
        assert len(server.requests) == 3
    failed = [r for r in caplog.records if r.name == "temporalio.activity"]
    assert [r.getMessage().split(" failed: ")[0] for r in failed] == [
        f"rath: rath.llm.complete attempt {n} of {out.run_id}" for n in (1, 2)
    ]  # one line per failed attempt, naming the run, and no traceback
    assert all(r.exc_info is None and "\n" not in r.getMessage() for r in failed)


def test_provider_retry_attempts_override_the_default(rath_env: Settings) -> None:
    script = [error_reply(500, "boom")] * 3 + [text_reply("never reached")]
    with FakeChatServer(script) as server:
        provider = fake_provider(server, retry_max_attempts=2, retry_base_seconds=0.05)
        out = flow.Agent("x", provider=provider, options=FAST)(Session.from_user_message("go"))
        with pytest.raises(RunFailedError, match="HTTP 500"):
            out.synchronize()
        assert len(server.requests) == 2


def test_a_base_url_without_a_key_is_a_keyless_server_not_the_demo(
    rath_env: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeChatServer([text_reply("from ollama")]) as server:
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        agent = flow.Agent("x", provider=flow.Provider(model="llama3"), options=FAST)
        out = agent(Session.from_user_message("go"))
        assert out.chunk_table.rows[-1].payload["content"] == "from ollama"
        (request,) = server.requests
    assert request.body["model"] == "llama3"
