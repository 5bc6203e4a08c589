"""OpenRath inventory 1.1 and 4.2: loop executors answer the model calls and dispatch the tools.

The executor is an object of the test process; the loop is still a durable run on the real
Temporal dev server, whose model and tool calls reach the executor through this process's own
task queue.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from support import FAST, fake_provider, tool_bodies
from temporalio.client import Client, WorkflowFailureError
from temporalio.exceptions import ApplicationError
from workers import WorkerProcess

from rath import flow
from rath.errors import RunFailedError
from rath.llm import Provider, RathLLMStreamDelta, RathOpenAIChatClient
from rath.llm.chat_request import RathLLMChatRequest, RathLLMFunctionTool
from rath.llm.chat_response import (
    RathLLMAssistantMessage,
    RathLLMChatChoice,
    RathLLMChatResponse,
    RathLLMTokenUsage,
    RathLLMToolCallFunction,
    RathLLMToolCallPart,
)
from rath.session import (
    ChunkKind,
    DefaultSessionLoopExecutor,
    Session,
    SessionLoopExecutor,
    run_session_compress,
    run_session_loop,
)
from rath.session.loop import StreamingExecutor, resolve_executor
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply
from rath.tools import FlowToolCall

PROVIDER = Provider(model="scripted-model")


def reply(content: str, *, usage: tuple[int, int] | None = None) -> RathLLMChatResponse:
    """A final answer."""
    return _response(RathLLMAssistantMessage(content=content), "stop", usage)


def calls(
    *pairs: tuple[str, dict[str, Any] | str], usage: tuple[int, int] | None = None
) -> RathLLMChatResponse:
    """An answer asking for tool calls ``(name, arguments)``."""
    parts = tuple(
        RathLLMToolCallPart(
            id=f"call_{index}",
            type="function",
            function=RathLLMToolCallFunction(
                name=name,
                arguments=args if isinstance(args, str) else json.dumps(args),
                arguments_parsed=None if isinstance(args, str) else args,
                arguments_parse_error=isinstance(args, str),
            ),
        )
        for index, (name, args) in enumerate(pairs)
    )
    return _response(RathLLMAssistantMessage(tool_calls=parts), "tool_calls", usage)


def _response(
    message: RathLLMAssistantMessage, reason: Any, usage: tuple[int, int] | None
) -> RathLLMChatResponse:
    tokens = None if usage is None else RathLLMTokenUsage(usage[0], usage[1], sum(usage))
    return RathLLMChatResponse(
        id="scripted",
        choices=(RathLLMChatChoice(index=0, finish_reason=reason, message=message),),
        created=0,
        model="scripted-model",
        usage=tokens,
    )


def loop(*user: Session, **arguments: Any) -> Session:
    """``run_session_loop`` over ``user`` (default: "go") with a one-line agent prompt."""
    arguments.setdefault("agent_provider", PROVIDER)
    arguments.setdefault("options", FAST)
    session = user[0] if user else Session.from_user_message("go")
    return run_session_loop(session, Session.from_agent_prompt("x"), **arguments)


class Scripted:
    """OpenRath's scripted executor: pops canned responses, calls tools like the default."""

    def __init__(self, responses: list[RathLLMChatResponse]) -> None:
        self.responses = list(responses)
        self.requests: list[RathLLMChatRequest] = []
        self.threads: set[str] = set()

    def complete(self, req: RathLLMChatRequest) -> RathLLMChatResponse:
        self.requests.append(req)
        self.threads.add(threading.current_thread().name)
        return self.responses.pop(0)

    def dispatch_tool(self, session: Session, tool: Any, arguments: Mapping[str, Any]) -> Any:
        return tool(session, dict(arguments))

    def tool_schemas(self) -> tuple[RathLLMFunctionTool, ...]:
        return ()


class Boom(FlowToolCall):
    name = "boom"
    parameters = {"type": "object", "properties": {}}

    def __call__(self, session: Any, arguments: Mapping[str, Any]) -> Any:
        raise RuntimeError("the tool broke")


def test_a_scripted_executor_answers_instead_of_the_provider(rath_env: Settings) -> None:
    executor = Scripted([reply("hi", usage=(5, 1))])
    assert isinstance(executor, SessionLoopExecutor)
    out = run_session_loop(
        Session.from_user_message("hello"),
        Session.from_agent_prompt("be brief"),
        agent_provider=PROVIDER,
        executor=executor,
        options=FAST,
    )
    rows = out.chunk_table.rows
    assert [row.kind for row in rows] == [ChunkKind.USER, ChunkKind.ASSISTANT]
    assert rows[-1].payload["content"] == "hi"
    assert out.cumulative_usage is not None and out.cumulative_usage.total_tokens == 6
    request = executor.requests[0]
    assert request.model == "scripted-model"
    assert [(m.role, m.content) for m in request.messages] == [
        ("system", "be brief"),
        ("user", "hello"),
    ]
    # Called in this process, off the caller's thread (a worker thread of the runtime).
    assert threading.current_thread().name not in executor.threads


def test_built_in_tools_run_through_the_executor(rath_env: Settings, tmp_path: Path) -> None:
    executor = Scripted(
        [
            calls(("write_workspace_file", {"path": "notes.txt", "content": "abc"})),
            reply("written"),
        ]
    )
    out = loop(Session.from_user_message("write").to("local", spec=tmp_path), executor=executor)
    bodies = tool_bodies(out)
    assert bodies[0]["bytes_written"] > 0
    assert (tmp_path / "notes.txt").read_text() == "abc"
    assert [t.name for t in executor.requests[0].tools or ()] == sorted(
        t.name for t in executor.requests[0].tools or ()
    )


def test_a_tool_error_becomes_a_body(rath_env: Settings) -> None:
    executor = Scripted([calls(("boom", {}), ("nope", {}), ("boom", "{bad")), reply("ok")])
    out = loop(tools=[Boom()], executor=executor)
    bodies = tool_bodies(out)
    assert [b["error_kind"] for b in bodies] == [
        "tool_execution_exception",
        "unknown_tool",
        "invalid_tool_arguments",
    ]
    assert "RuntimeError" in bodies[0]["message"]


def test_the_executor_dispatches_every_call(rath_env: Settings) -> None:
    seen: list[tuple[str, int]] = []

    class Intercepting(Scripted):
        def dispatch_tool(self, session: Session, tool: Any, arguments: Mapping[str, Any]) -> Any:
            seen.append((tool.name, len(session.chunk_table.rows)))
            return {"intercepted": tool.name, "arguments": dict(arguments)}

    executor = Intercepting([calls(("boom", {"x": 1})), reply("ok")])
    out = loop(tools=[Boom()], executor=executor)
    assert tool_bodies(out) == [{"intercepted": "boom", "arguments": {"x": 1}}]
    # The session the tool sees is the transcript in flight: the user row and the call.
    assert seen == [("boom", 2)]


def test_max_tool_rounds_truncates(rath_env: Settings, tmp_path: Path) -> None:
    look = ("workspace_path_exists", {"path": "a"})
    executor = Scripted([calls(look) for _ in range(3)])
    out = loop(
        Session.from_user_message("go").to("local", spec=tmp_path),
        executor=executor,
        max_tool_rounds=3,
    )
    assert len(out.rows_of_kind(ChunkKind.TOOL_RESULT)) == 3
    assert ("loop.truncated", True) in out.lineage_extras


def test_on_event_with_an_executor_fails_when_read(rath_env: Settings) -> None:
    out = loop(executor=Scripted([reply("never")]), on_event=lambda delta: None)
    with pytest.raises(ValueError, match="on_event with a custom executor"):
        out.synchronize()
    with pytest.raises(ValueError, match="on_event with a custom executor"):
        resolve_executor(agent_provider=PROVIDER, executor=Scripted([]), on_event=print)


def test_an_executor_failure_fails_the_run_once(rath_env: Settings) -> None:
    class Broken(Scripted):
        def complete(self, req: RathLLMChatRequest) -> RathLLMChatResponse:
            self.requests.append(req)
            raise RuntimeError("script ran dry")

    executor = Broken([])
    out = loop(executor=executor)
    with pytest.raises(RunFailedError, match="script ran dry"):
        out.synchronize()
    assert len(executor.requests) == 1  # not retried: a scripted answer would be skipped


def test_executor_schemas_replace_the_offered_tools(rath_env: Settings) -> None:
    only = RathLLMFunctionTool(name="lookup", parameters={"type": "object"})

    class Offering(Scripted):
        def tool_schemas(self) -> tuple[RathLLMFunctionTool, ...]:
            return (only,)

    executor = Offering([reply("ok")])
    loop(tools=[Boom()], executor=executor).synchronize()
    assert executor.requests[0].tools == (only,)


def test_an_async_executor_is_awaited(rath_env: Settings) -> None:
    class Async(Scripted):
        async def acomplete(self, req: RathLLMChatRequest) -> RathLLMChatResponse:
            await asyncio.sleep(0)
            return self.complete(req)

    out = loop(executor=Async([reply("awaited")]))
    assert out.chunk_table.rows[-1].payload["content"] == "awaited"


def test_compression_through_an_executor(rath_env: Settings) -> None:
    executor = Scripted([reply("  the gist  ")])
    out = run_session_compress(
        Session.from_user_message("a long talk"),
        Session.from_agent_prompt("compress"),
        agent_provider=PROVIDER,
        executor=executor,
    )
    rows = out.chunk_table.rows
    assert [(row.kind, row.payload["content"]) for row in rows] == [(ChunkKind.USER, "the gist")]
    assert executor.requests[0].messages[-1].role == "user"


def test_the_default_and_streaming_executors_over_a_real_client(rath_env: Settings) -> None:
    script = [text_reply("Hello"), text_reply("Hello")]
    with FakeChatServer(script) as server:
        provider = fake_provider(server)
        client = RathOpenAIChatClient(provider)
        plain = loop(
            Session.from_user_message("hi"),
            executor=DefaultSessionLoopExecutor(client),
            agent_provider=provider,
        )
        assert plain.chunk_table.rows[-1].payload["content"] == "Hello"
        deltas: list[RathLLMStreamDelta] = []
        streamed = loop(
            Session.from_user_message("hi"),
            executor=StreamingExecutor(client, deltas.append),
            agent_provider=provider,
        )
        assert streamed.chunk_table.rows[-1].payload["content"] == "Hello"
        client.close()
    assert "".join(d.content_delta or "" for d in deltas) == "Hello"
    assert isinstance(
        resolve_executor(agent_provider=provider, executor=None, on_event=None),
        DefaultSessionLoopExecutor,
    )


def test_an_agent_takes_an_executor_override(rath_env: Settings) -> None:
    agent = flow.Agent("x", provider=PROVIDER, options=FAST)
    agent._executor_override = Scripted([reply("from the seam")])
    out = agent(Session.from_user_message("go"))
    assert out.chunk_table.rows[-1].payload["content"] == "from the seam"


class Lane(FlowToolCall):
    """A parallel-safe tool whose lane is its ``key`` argument."""

    name = "lane"
    parameters = {"type": "object", "properties": {"key": {"type": "string"}}}
    parallel_safe = True

    def resource_key(self, arguments: Mapping[str, Any]) -> tuple[str, ...]:
        return ("lane", str(arguments.get("key")))

    def __call__(self, session: Any, arguments: Mapping[str, Any]) -> Any:
        return {"key": arguments.get("key")}


def test_the_executor_dispatches_by_resource_key(rath_env: Settings) -> None:
    # Two calls in different lanes meet at a barrier: it opens only if they run at once.
    # Two calls in one lane never overlap.
    barrier = threading.Barrier(2, timeout=30)
    lock = threading.Lock()
    running = {"now": 0, "peak": 0}

    class Meeting(Scripted):
        def dispatch_tool(self, session: Session, tool: Any, arguments: Mapping[str, Any]) -> Any:
            with lock:
                running["now"] += 1
                running["peak"] = max(running["peak"], running["now"])
            try:
                if arguments["key"] in ("a", "b"):
                    barrier.wait()
                return tool(session, arguments)
            finally:
                with lock:
                    running["now"] -= 1

    apart = Meeting([calls(("lane", {"key": "a"}), ("lane", {"key": "b"})), reply("ok")])
    out = loop(tools=[Lane()], executor=apart)
    assert tool_bodies(out) == [{"key": "a"}, {"key": "b"}]
    running["peak"] = 0
    same = Meeting([calls(("lane", {"key": "c"}), ("lane", {"key": "c"})), reply("ok")])
    out = loop(tools=[Lane()], executor=same)
    assert tool_bodies(out) == [{"key": "c"}, {"key": "c"}]
    assert running["peak"] == 1


def test_budget_callback_and_persistence_with_a_scripted_executor(
    rath_env: Settings, tmp_path: Path
) -> None:
    # OpenRath's budget tests drive the loop with a scripted executor: the callback runs once,
    # after the round that crossed the cap, with the output and its usage.
    crossings: list[int] = []
    look = ("workspace_path_exists", {"path": "a"})
    provider = Provider(
        model="scripted-model",
        budget_total_tokens=100,
        on_budget_exceeded=lambda out, usage: crossings.append(usage.total_tokens),
    )
    out = loop(
        Session.from_user_message("go").to("local", spec=tmp_path / "ws"),
        executor=Scripted([calls(look, usage=(50, 10)), reply("done", usage=(50, 10))]),
        persist_path=tmp_path / "run.jsonl",
        agent_provider=provider,
    )
    assert out.cumulative_usage is not None and out.cumulative_usage.total_tokens == 120
    assert crossings == [120]
    assert (tmp_path / "run.jsonl").read_text().count("\n") == 6  # header, 4 rows, trailer

    # An executor that fails leaves only the partial file, OpenRath's crash marker.
    class Broken(Scripted):
        def complete(self, req: RathLLMChatRequest) -> RathLLMChatResponse:
            raise RuntimeError("no more script")

    failed = loop(executor=Broken([]), persist_path=tmp_path / "failed.jsonl")
    with pytest.raises(RunFailedError):
        failed.synchronize()
    assert not (tmp_path / "failed.jsonl").exists()
    assert (tmp_path / "failed.jsonl.__partial__").exists()


def test_the_chunk_table_is_one_object_while_the_rows_stay(rath_env: Settings) -> None:
    out = loop(executor=Scripted([reply("ok")]))
    assert out.chunk_table is out.chunk_table
    assert out.fork().chunk_table.rows == out.chunk_table.rows


DYING_SCRIPT = """
import os
from rath.contracts.runs import LoopOptions
from rath.llm import Provider
from rath.session import Session, run_session_loop

class Dying:
    def complete(self, req):
        os._exit(0)  # the process ends in the middle of the model call
    def dispatch_tool(self, session, tool, arguments):
        return None
    def tool_schemas(self):
        return ()

options = LoopOptions(
    llm_heartbeat_seconds=2, tool_worker_wait_seconds=2, llm_retry_base_seconds=0.1
)
out = run_session_loop(
    Session.from_user_message("go"), Session.from_agent_prompt("x"),
    agent_provider=Provider(model="m"), executor=Dying(), options=options,
)
print(out.run_id, flush=True)
out.synchronize()
"""


async def test_a_run_whose_executor_process_ended_fails_saying_so(
    rath_env: Settings, client: Client
) -> None:
    script = subprocess.run(
        [sys.executable, "-c", DYING_SCRIPT],
        check=False,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert script.returncode == 0, script.stderr
    run_id = script.stdout.strip()
    # The run itself lived on the script's in-process worker: another worker takes it over.
    with WorkerProcess(dict(os.environ)), pytest.raises(WorkflowFailureError) as info:
        await asyncio.wait_for(client.get_workflow_handle(run_id).result(), 60)
    cause = info.value.cause
    assert isinstance(cause, ApplicationError) and cause.type == "LoopExecutorGone"
    assert "the process that started this run with executor= has ended" in cause.message


def test_a_tool_call_through_the_executor_runs_at_most_once(rath_env: Settings) -> None:
    # The first attempt overruns its timeout (the executor's call cannot be interrupted) and
    # Temporal starts a second one: the call journal answers it instead of calling again.
    effects: list[dict[str, Any]] = []
    release = threading.Event()

    class Overrunning(Scripted):
        def dispatch_tool(self, session: Session, tool: Any, arguments: Mapping[str, Any]) -> Any:
            effects.append(dict(arguments))
            release.wait(timeout=60)
            return "charged"

    options = FAST.model_copy(
        update={"tool_timeout_seconds": 3.0, "tool_heartbeat_seconds": 1.0, "tool_max_attempts": 2}
    )
    executor = Overrunning([calls(("boom", {"amount": 5})), reply("ok")])
    try:
        out = loop(tools=[Boom()], executor=executor, options=options)
        bodies = tool_bodies(out)
    finally:
        release.set()
    assert effects == [{"amount": 5}]
    assert bodies[0]["error_kind"] == "tool_outcome_unknown"
    assert "'boom'" in bodies[0]["message"] and "retry_safe=True" in bodies[0]["message"]
