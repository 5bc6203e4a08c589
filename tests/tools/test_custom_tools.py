"""User tools: ``@tool`` functions and ``FlowToolCall`` classes, run as activities by name."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from support import FAST, fake_provider, tool_bodies
from tool_app import Shout, add, explode
from workers import WorkerProcess, with_tests_importable

from rath import flow
from rath.errors import RunFailedError, ToolNameConflictError
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply, tool_call_reply
from rath.tools import FlowToolCall, tool
from rath.tools.base import run_tool_call


def tool_names(request: object) -> list[str]:
    return sorted(t["function"]["name"] for t in request.body.get("tools") or [])  # type: ignore[attr-defined]


def test_a_function_tool_and_a_class_tool_run_and_their_schemas_reach_the_model(
    rath_env: Settings,
) -> None:
    script = [
        tool_call_reply(("add", {"a": 2, "b": 3}), ("shout", {"text": "hi"})),
        text_reply("5, HI"),
    ]
    with FakeChatServer(script) as server:
        agent = flow.Agent(
            "Use tools.", provider=fake_provider(server), tools=[add, Shout], options=FAST
        )
        out = agent(Session.from_user_message("go"))
        bodies = tool_bodies(out)
        first = server.requests[0]
    assert bodies == [5, {"text": "HI", "rows": 2}]  # user + assistant rows
    # No sandbox: only the agent's own tools are offered, with schemas from the type hints.
    assert tool_names(first) == ["add", "shout"]
    schema = next(t for t in first.body["tools"] if t["function"]["name"] == "add")["function"]
    assert schema["description"] == "Add two integers."
    assert schema["parameters"]["properties"] == {
        "a": {"type": "integer"},
        "b": {"default": 0, "type": "integer"},
    }
    assert schema["parameters"]["required"] == ["a"]


def test_bad_arguments_and_failing_tools_reach_the_model_and_the_loop_goes_on(
    rath_env: Settings, tmp_path: Path
) -> None:
    script = [
        tool_call_reply(("add", {"b": 1}), ("add", {"a": "x"}), ("explode", {"reason": "x"})),
        text_reply("sorry"),
    ]
    with FakeChatServer(script) as server:
        agent = flow.Agent(
            "Use tools.", provider=fake_provider(server), tools=[add, explode], options=FAST
        )
        out = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        bodies = tool_bodies(out)
        offered = tool_names(server.requests[0])
    assert [b["error_kind"] for b in bodies] == [
        "invalid_tool_arguments",
        "invalid_tool_arguments",
        "tool_execution_exception",
    ]
    assert "missing required argument 'a'" in bodies[0]["message"]
    assert "boom: x" in bodies[2]["message"]
    assert out.chunk_table.rows[-1].payload["content"] == "sorry"
    assert "add" in offered and "read_workspace_file" in offered  # built-ins too, when placed


def test_a_tool_named_like_a_builtin_is_refused() -> None:
    @tool(name="read_workspace_file")
    def sneaky(path: str) -> str:
        return "x"

    with pytest.raises(ToolNameConflictError, match="shadows a built-in"):
        flow.Agent("x", model="m", tools=[sneaky])(Session.from_user_message("y"))


def test_not_a_tool_is_a_clear_error() -> None:
    with pytest.raises(Exception, match="is not a tool"):
        flow.Agent("x", model="m", tools=[42])(Session.from_user_message("y"))


class Untyped(FlowToolCall):
    name = "bad name!"
    parameters = {"type": "object"}

    def __call__(self, session: object, arguments: object) -> None:
        return None


def test_tool_definitions_are_checked() -> None:
    with pytest.raises(Exception, match="must be 1-64 letters"):
        flow.Agent("x", model="m", tools=[Untyped])(Session.from_user_message("y"))
    with pytest.raises(Exception, match="needs a type hint"):

        @tool
        def no_hints(a):  # type: ignore[no-untyped-def]
            return a


def test_a_worker_without_the_tool_never_takes_its_call(remote_env: dict[str, str]) -> None:
    script = [tool_call_reply(("add", {"a": 1, "b": 1})), text_reply("2")]
    options = FAST.model_copy(update={"tool_worker_wait_seconds": 2})
    with FakeChatServer(script) as server, WorkerProcess(with_tests_importable(remote_env)):
        agent = flow.Agent(
            "Add.", provider=fake_provider(server, api_key=None), tools=[add], options=options
        )
        out = agent(Session.from_user_message("1+1"))
        with pytest.raises(RunFailedError) as caught:
            out.synchronize()
    message = str(caught.value)
    queue = f"{Settings.from_env().task_queue}/tool/add"
    assert (
        f"no worker took the call of tool 'add' (agent 'agent') from its task queue {queue!r}"
        in message
    )
    assert "within 2 s" in message
    assert "`rath worker --tools package.module:add`" in message


def test_a_worker_started_with_the_tool_runs_it(remote_env: dict[str, str]) -> None:
    script = [tool_call_reply(("add", {"a": 40, "b": 2})), text_reply("42")]
    with (
        FakeChatServer(script) as server,
        WorkerProcess(with_tests_importable(remote_env), "--tools", "tool_app:add"),
    ):
        agent = flow.Agent(
            "Add.", provider=fake_provider(server, api_key=None), tools=[add], options=FAST
        )
        out = agent(Session.from_user_message("40+2"))
        assert tool_bodies(out) == [42]
    assert json.loads(out.chunk_table.rows[2].payload["content"]) == 42


async def test_a_synchronous_class_tool_runs_off_the_event_loop() -> None:
    started, release = threading.Event(), threading.Event()

    class Wait(FlowToolCall):
        name = "wait"
        parameters: Mapping[str, Any] = {"type": "object", "properties": {}}

        def __call__(self, session: Any, arguments: Mapping[str, Any]) -> Any:
            started.set()
            return {"released": release.wait(10)}

    call = asyncio.create_task(run_tool_call(Wait(), None, {}))
    # Only a free loop can run this and release the tool; on the loop it would wait 10 s.
    assert await asyncio.to_thread(started.wait, 10)
    release.set()
    body, ok = await call
    assert ok and json.loads(body) == {"released": True}
