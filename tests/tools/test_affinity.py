"""Sandbox affinity: every tool call of a placed session runs on the worker that opened it."""

from __future__ import annotations

from pathlib import Path

from support import FAST, tool_bodies
from tool_app import whoami
from workers import WorkerProcess, with_tests_importable

from rath import flow
from rath.session import Session
from rath.testing import FakeChatServer, text_reply, tool_call_reply

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
            provider = flow.Provider(model="fake-model", base_url=server.base_url)
            agent = flow.Agent("Who?", provider=provider, tools=[whoami], options=FAST)
            user = Session.from_user_message("who").to("local", spec=tmp_path / f"ws{i}")
            outs.append(agent(user))
        owners = []
        for out in outs:
            answers = {body["result"] for body in tool_bodies(out)}
            assert len(tool_bodies(out)) == ROUNDS
            assert len(answers) == 1, answers  # one worker ran every call of the session
            (worker,) = answers
            assert out.sandbox is not None
            assert out.sandbox.owner == f"{remote_env['RATH_TASK_QUEUE']}@{worker}"
            owners.append(worker)
        for server in servers:
            server.stop()
    assert set(owners) <= {"w1", "w2"}
