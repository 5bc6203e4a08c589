"""Sandbox affinity: every tool call of a placed session runs on the worker that opened it."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from support import FAST, fake_provider, history_of, tool_bodies
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from tool_app import whoami
from workers import WorkerProcess, with_tests_importable

from rath import flow
from rath.errors import RunFailedError
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, function_handler, gated, text_reply, tool_call_reply

ROUNDS = 4
SESSIONS = 6


def test_tool_calls_always_land_on_the_sandbox_owner(
    remote_env: dict[str, str], tmp_path: Path
) -> None:
    env = with_tests_importable(remote_env)
    args = ("--tools", "tool_app:whoami")
    script = [tool_call_reply(("whoami", {}))] * ROUNDS + [text_reply("done")]
    servers = [FakeChatServer(list(script)) for _ in range(SESSIONS)]
    with (
        WorkerProcess(env | {"RATH_WORKER_ID": "w1"}, *args),
        WorkerProcess(env | {"RATH_WORKER_ID": "w2"}, *args),
    ):
        outs = []
        for i, server in enumerate(servers):
            server.start()
            provider = fake_provider(server, api_key=None)
            agent = flow.Agent("Who?", provider=provider, tools=[whoami], options=FAST)
            user = Session.from_user_message("who").to("local", spec=tmp_path / f"ws{i}")
            outs.append(agent(user))
        owners = []
        for out in outs:
            answers = set(tool_bodies(out))
            assert len(tool_bodies(out)) == ROUNDS
            assert len(answers) == 1, answers  # one worker ran every call of the session
            (worker,) = answers
            assert out.sandbox is not None
            assert out.sandbox.owner == f"{Settings.from_env().task_queue}@{worker}"
            owners.append(worker)
        for server in servers:
            server.stop()
    assert set(owners) <= {"w1", "w2"}


def test_a_worker_restarted_under_its_id_takes_its_sandboxes_back(
    remote_env: dict[str, str], tmp_path: Path
) -> None:
    gate = threading.Event()
    read = tool_call_reply(("read_workspace_file", {"path": "notes.txt"}), ("whoami", {}))
    replies = iter(
        [
            tool_call_reply(("write_workspace_file", {"path": "notes.txt", "content": "hi"})),
            gated(read, gate),  # lost with the first worker
            read,
            text_reply("done"),
        ]
    )
    env = with_tests_importable(remote_env) | {"RATH_WORKER_ID": "w1"}
    args = ("--tools", "tool_app:whoami")
    options = FAST.model_copy(update={"llm_heartbeat_seconds": 2})
    first = WorkerProcess(env, *args)
    second: WorkerProcess | None = None
    with FakeChatServer(function_handler(lambda r: next(replies))) as server:
        try:
            provider = fake_provider(server, api_key=None)
            agent = flow.Agent("Work.", provider=provider, tools=[whoami], options=options)
            out = agent(Session.from_user_message("go").to("local", spec=tmp_path / "ws"))
            server.wait_for_requests(2, timeout=60)  # round 1's write done, round 2 in flight
            first.kill()
            gate.set()
            second = WorkerProcess(env, *args)  # same RATH_WORKER_ID: same own queue
            bodies = tool_bodies(out)
        finally:
            first.stop()
            if second is not None:
                second.stop()
    assert bodies[1]["data"] == "hi" and bodies[2] == "w1"
    assert out.sandbox is not None and out.sandbox.owner == f"{Settings.from_env().task_queue}@w1"


def test_a_run_whose_sandbox_owner_is_gone_fails_naming_its_queue(
    remote_env: dict[str, str], tmp_path: Path
) -> None:
    """The owner never comes back (say its host was replaced): no endless wait."""
    gate = threading.Event()
    read = tool_call_reply(("read_workspace_file", {"path": "notes.txt"}))
    script = [
        tool_call_reply(("write_workspace_file", {"path": "notes.txt", "content": "hi"})),
        gated(read, gate),  # lost with the owner; the LLM call is retried on the other worker
        read,
        text_reply("never"),
    ]
    owner = WorkerProcess(remote_env | {"RATH_WORKER_ID": "owner"})
    other: WorkerProcess | None = None
    options = FAST.model_copy(update={"llm_heartbeat_seconds": 2, "sandbox_owner_wait_seconds": 2})
    with FakeChatServer(script) as server:
        try:
            provider = fake_provider(server, api_key=None)
            agent = flow.Agent("Work.", provider=provider, options=options)
            out = agent(Session.from_user_message("go").to("local", spec=tmp_path / "ws"))
            server.wait_for_requests(2, timeout=60)  # round 1's write ran on the owner
            owner.kill()
            other = WorkerProcess(remote_env | {"RATH_WORKER_ID": "other"})  # runs the rest
            gate.set()
            with pytest.raises(RunFailedError) as caught:
                out.synchronize()
        finally:
            owner.stop()
            if other is not None:
                other.stop()
    message = str(caught.value)
    assert "SandboxOwnerUnavailable" in message or "that worker is gone" in message
    assert f"{Settings.from_env().task_queue}@owner" in message


async def test_an_embedded_run_starts_on_the_queue_of_its_sandboxs_owner(
    rath_env: Settings, client: Client, tmp_path: Path
) -> None:
    """Its claim, model and tool calls then share the run's queue (eager dispatch)."""
    write = tool_call_reply(("write_workspace_file", {"path": "a.txt", "content": "A"}))
    with FakeChatServer([write, write, text_reply("done"), text_reply("bare")]) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=FAST)
        placed = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        placed.synchronize()
        unplaced = agent(Session.from_user_message("go"))
        assert unplaced.chunk_table.rows[-1].payload["content"] == "bare"
    owner = rath_env.affinity_queue
    assert placed.sandbox is not None and placed.sandbox.owner == owner
    assert placed.run_id is not None and unplaced.run_id is not None
    history = await history_of(client, placed.run_id)
    started = history.events[0].workflow_execution_started_event_attributes
    assert started.task_queue.name == owner
    scheduled = {
        (
            e.activity_task_scheduled_event_attributes.activity_type.name,
            e.activity_task_scheduled_event_attributes.task_queue.name,
        )
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    }
    assert {queue for _, queue in scheduled} == {owner}, scheduled
    assert {"rath.sandbox.claim", "rath.tools.run"} <= {name for name, _ in scheduled}
    bare = await history_of(client, unplaced.run_id)
    bare_started = bare.events[0].workflow_execution_started_event_attributes
    assert bare_started.task_queue.name == rath_env.task_queue  # no sandbox: any worker
