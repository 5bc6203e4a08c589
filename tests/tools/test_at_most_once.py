"""A user tool's effect never happens twice: a worker SIGKILLed mid-call is not silently re-run."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from support import FAST, fake_provider, tool_bodies
from tool_app import append_line, append_once, slow_append
from workers import WorkerProcess, with_tests_importable

from rath import flow
from rath.session import Session
from rath.store import ChunkStore
from rath.store.call_journal import CallJournal, CallMade
from rath.testing import (
    FakeChatServer,
    RecordedRequest,
    Reply,
    function_handler,
    text_reply,
    tool_call_reply,
)
from rath.tools import FlowToolCall, FunctionTool, current_tool_call, tool
from rath.tools.base import run_tool_call
from rath.tools.context import ToolCallContext, calling

STARTED_TIMEOUT = 60.0
OPTIONS = FAST.model_copy(update={"tool_heartbeat_seconds": 2})


def _wait_for_text(path: Path) -> str:
    """The file's text once the tool has written it (bounded)."""
    deadline = time.monotonic() + STARTED_TIMEOUT
    while not (path.exists() and path.read_text()):
        assert time.monotonic() < deadline, f"the tool never wrote {path}"
        time.sleep(0.02)  # polling a file a worker process writes, bounded by the deadline
    return path.read_text()


def _stop_mid_call(
    remote_env: dict[str, str], chosen: FunctionTool, effect: Path, *, graceful: bool = False
) -> Session:
    """One call of ``chosen``; stop its worker while the call holds, a second one finishes.

    ``graceful`` sends SIGTERM (a normal restart, the worker must exit 0) instead of SIGKILL.
    """
    script = [
        tool_call_reply((chosen.name, {"path": str(effect), "text": "once"})),
        text_reply("noted"),
    ]
    env = with_tests_importable(remote_env)
    target = f"tool_app:{chosen.name}"
    first = WorkerProcess(env, "--tools", target)
    second: WorkerProcess | None = None
    try:
        with FakeChatServer(script) as server:
            provider = fake_provider(server, api_key=None)
            agent = flow.Agent("x", provider=provider, tools=[chosen], options=OPTIONS)
            out = agent(Session.from_user_message("go"))
            _wait_for_text(effect)
            if graceful:
                first.proc.terminate()
            else:
                first.kill()
            effect.with_name(effect.name + ".go").touch()
            if graceful:
                assert first.proc.wait(timeout=STARTED_TIMEOUT) == 0
            second = WorkerProcess(env, "--tools", target)
            out.synchronize()
            assert len(server.requests) == 2  # the model was asked once per round
        assert out.chunk_table.rows[-1].payload["content"] == "noted"
        return out
    finally:
        first.stop()
        if second is not None:
            second.stop()


def test_a_call_cut_off_by_a_dead_worker_is_reported_not_run_again(
    remote_env: dict[str, str], tmp_path: Path
) -> None:
    effect = tmp_path / "effects.txt"
    out = _stop_mid_call(remote_env, append_line, effect)
    assert effect.read_text().splitlines() == ["once"]
    (body,) = tool_bodies(out)
    assert body["error_kind"] == "tool_outcome_unknown"
    assert body["idempotency_key"].count("/") == 2  # workflow id / run id / activity id
    assert "not run again" in body["message"]


def test_a_tool_that_takes_the_key_runs_again_with_the_same_key(
    remote_env: dict[str, str], tmp_path: Path
) -> None:
    effect = tmp_path / "effects.txt"
    out = _stop_mid_call(remote_env, append_once, effect)
    attempts = (tmp_path / "effects.txt.attempts").read_text().splitlines()
    assert len(attempts) == 2 and attempts[0] == attempts[1]  # re-run, with the same key
    (line,) = effect.read_text().splitlines()
    assert line == f"{attempts[0]} once"
    assert tool_bodies(out) == ["appended"]
    assert "idempotency_key" not in json.dumps(append_once.parameters)


def test_a_finished_call_is_never_run_again(tmp_path: Path) -> None:
    journal = CallJournal(ChunkStore(tmp_path).objects)
    assert journal.begin("wf/run/1", 1) is None
    journal.finish("wf/run/1", 1, result="ab" * 32, ok=True, preview="42")
    earlier = journal.begin("wf/run/1", 2)
    assert earlier is not None and earlier.state == "done" and earlier.result == "ab" * 32
    cut_off = journal.begin("wf/run/2", 1) is None and journal.begin("wf/run/2", 2)
    assert cut_off and cut_off.state == "started" and cut_off.attempt == 1


def test_a_reset_run_gets_its_originals_result_unless_the_call_differs(tmp_path: Path) -> None:
    journal = CallJournal(ChunkStore(tmp_path).objects)
    key = "wf/original-run/5"  # a reset run keys its calls by its original run
    made = CallMade(call="digest-a#0", run="wf/original-run")
    assert journal.begin(key, 1, made) is None
    journal.finish(key, 1, result="ab" * 32, ok=True, preview="42", made=made)
    reset = CallMade(call="digest-a#0", run="wf/reset-run")
    earlier = journal.begin(key, 1, reset)
    assert earlier is not None and earlier.state == "done" and earlier.result == "ab" * 32
    kept = journal.get(key)
    assert kept is not None and kept.run == "wf/reset-run"  # gc keeps it while the reset runs
    # Reset to before the model call: the same activity id may hold another call, which runs.
    assert journal.begin(key, 1, CallMade(call="digest-b#0", run="wf/reset-run")) is None
    replaced = journal.get(key)
    assert replaced is not None and replaced.state == "started" and replaced.call == "digest-b#0"


def test_tools_declare_whether_a_repeat_is_safe() -> None:
    @tool
    def plain(x: int) -> int:
        return x

    @tool(retry_safe=True)
    def declared(x: int) -> int:
        return x

    class Reader(FlowToolCall):
        name = "reader"
        parameters = {"type": "object", "properties": {}}
        retry_safe = True

        def __call__(self, session: object, arguments: object) -> object:
            call = current_tool_call()
            return {"key": call.idempotency_key if call else None}

    assert (plain.retry_safe, declared.retry_safe, Reader().retry_safe) == (False, True, True)
    assert append_once.retry_safe and not append_line.retry_safe
    assert current_tool_call() is None


async def test_the_key_is_readable_inside_sync_and_async_tools() -> None:
    @tool
    def sync_tool() -> str:
        call = current_tool_call()
        return call.idempotency_key if call else "none"

    @tool
    async def async_tool(idempotency_key: str) -> str:
        return idempotency_key

    with calling(ToolCallContext("wf/run/7", 1, "t")):
        assert await run_tool_call(sync_tool, None, {}) == ('"wf/run/7"', True)
        assert await run_tool_call(async_tool, None, {}) == ('"wf/run/7"', True)


SESSIONS, ROUNDS, KILLS = 5, 6, 3


def _chaos_model(effect: Path) -> Callable[[RecordedRequest], Reply]:
    def reply(request: RecordedRequest) -> Reply:
        who = str(request.messages[1]["content"])  # the user message names the session
        done = sum(1 for message in request.messages if message.get("role") == "tool")
        if done == ROUNDS:
            return text_reply(f"{who} finished")
        return tool_call_reply(("slow_append", {"path": str(effect), "text": f"{who}-{done}"}))

    return reply


@pytest.mark.slow
def test_chaos_worker_killed_every_few_seconds_no_effect_twice(
    remote_env: dict[str, str], tmp_path: Path
) -> None:
    effect = tmp_path / "effects.txt"
    env = with_tests_importable(remote_env)
    options = OPTIONS.model_copy(update={"llm_heartbeat_seconds": 2})
    workers = [WorkerProcess(env, "--tools", "tool_app:slow_append")]
    try:
        with FakeChatServer(function_handler(_chaos_model(effect))) as server:
            provider = fake_provider(server, api_key=None)
            agent = flow.Agent("x", provider=provider, tools=[slow_append], options=options)
            outs = [agent(Session.from_user_message(f"s{i}")) for i in range(SESSIONS)]
            for _ in range(KILLS):
                _wait_for_lines(effect, len(_lines(effect)) + 2)  # kill while work goes on
                workers[-1].kill()
                workers.append(WorkerProcess(env, "--tools", "tool_app:slow_append"))
            for out in outs:
                out.synchronize()
    finally:
        for worker in workers:
            worker.stop()
    lines = _lines(effect)
    assert len(lines) == len(set(lines)), "an effect happened twice"
    unknown = 0
    for i, out in enumerate(outs):
        assert out.chunk_table.rows[-1].payload["content"] == f"s{i} finished"
        bodies = tool_bodies(out)
        assert len(bodies) == ROUNDS
        for round_no, body in enumerate(bodies):
            if isinstance(body, dict) and body.get("error_kind") == "tool_outcome_unknown":
                unknown += 1  # reported to the model; the effect may or may not be there
            else:
                assert body == "appended"
                assert f"s{i}-{round_no}" in lines
    assert unknown <= KILLS * SESSIONS  # at most the calls in flight when a kill landed


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def _wait_for_lines(path: Path, count: int) -> None:
    deadline = time.monotonic() + STARTED_TIMEOUT
    while len(_lines(path)) < count:
        assert time.monotonic() < deadline, f"{path} never reached {count} lines"
        time.sleep(0.02)  # polling a file worker processes write, bounded by the deadline


def test_sigterm_lets_the_call_in_flight_finish(remote_env: dict[str, str], tmp_path: Path) -> None:
    effect = tmp_path / "effects.txt"
    out = _stop_mid_call(remote_env, append_line, effect, graceful=True)
    assert effect.read_text().splitlines() == ["once"]  # finished by the draining worker
    assert tool_bodies(out) == ["appended"]
