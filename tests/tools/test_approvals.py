"""Tool policies: ``deny`` refuses, ``ask`` waits for a person's answer (a Temporal update)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from support import FAST, fake_provider, tool_bodies
from tool_app import add

import rath
from rath import flow
from rath.contracts.catalog import ToolPolicy
from rath.errors import ConfigError, RunNotFoundError
from rath.runtime.devserver import temporal_binary
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply, tool_call_reply

T = TypeVar("T")
WAIT = 30.0


def eventually(probe: Callable[[], T], timeout: float = WAIT) -> T:
    """Poll ``probe`` until it returns something truthy (bounded)."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"nothing after {timeout}s")
        time.sleep(0.05)


def asking_agent(server: FakeChatServer, policy: object) -> flow.Agent:
    return flow.Agent(
        "Add.", provider=fake_provider(server), tools=[add], tool_policy=policy, options=FAST
    )


def test_an_approved_call_runs(rath_env: Settings) -> None:
    script = [tool_call_reply(("add", {"a": 1, "b": 2})), text_reply("3")]
    with FakeChatServer(script) as server:
        out = asking_agent(server, {"add": "ask"})(Session.from_user_message("1+2"))
        (waiting,) = eventually(lambda: rath.pending_approvals(out))
        assert waiting.tool == "add" and waiting.agent == "agent"
        assert len(server.requests) == 1  # paused: the model has not been asked again
        with pytest.raises(ConfigError, match=f"waiting: {waiting.call_id}"):
            rath.approve(out, "no-such-call")
        rath.approve(out, waiting.call_id)
        assert tool_bodies(out) == [3]
    assert rath.pending_approvals(out) == []


def test_a_denied_call_tells_the_model_why(rath_env: Settings) -> None:
    script = [tool_call_reply(("add", {"a": 1, "b": 2})), text_reply("ok")]
    with FakeChatServer(script) as server:
        out = asking_agent(server, {"a*": "ask"})(Session.from_user_message("1+2"))
        (waiting,) = eventually(lambda: rath.pending_approvals(out))
        rath.deny(out, waiting.call_id, "not today")
        (body,) = tool_bodies(out)
    assert body["error_kind"] == "denied" and "not today" in body["message"]


def test_no_answer_in_time_counts_as_a_denial(rath_env: Settings) -> None:
    policy = ToolPolicy(rules=(("add", "ask"),), timeout_seconds=1)
    script = [tool_call_reply(("add", {"a": 1, "b": 2})), text_reply("ok")]
    with FakeChatServer(script) as server:
        out = asking_agent(server, policy)(Session.from_user_message("1+2"))
        (body,) = tool_bodies(out)
    assert body["error_kind"] == "approval_timeout"


def test_a_denied_tool_never_runs(rath_env: Settings) -> None:
    script = [tool_call_reply(("add", {"a": 1, "b": 2})), text_reply("ok")]
    with FakeChatServer(script) as server:
        out = asking_agent(server, {"*": "deny"})(Session.from_user_message("1+2"))
        (body,) = tool_bodies(out)
    assert body["error_kind"] == "denied_by_policy"


class Asked(flow.Workflow):
    def __init__(self, provider: flow.Provider) -> None:
        super().__init__()
        self.adder = flow.Agent(
            "Add.", provider=provider, tools=[add], tool_policy={"add": "ask"}, options=FAST
        )

    def forward(self, session: Session) -> Session:
        return self.adder(session)


def test_calls_in_a_durable_tree_are_answered_from_the_command_line(rath_env: Settings) -> None:
    script = [tool_call_reply(("add", {"a": 2, "b": 2})), text_reply("4")]
    with FakeChatServer(script) as server:
        out = Asked(fake_provider(server))(Session.from_user_message("2+2"))
        (waiting,) = eventually(lambda: rath.pending_approvals(out))  # found in the child
        assert out.run_id is not None
        env = dict(os.environ, RATH_HOME=str(rath_env.home))
        command = [str(Path(sys.executable).with_name("rath"))]
        listed = subprocess.run(
            [*command, "approvals", out.run_id],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert waiting.call_id in listed.stdout and "adder" in listed.stdout
        answered = subprocess.run(
            [*command, "approve", out.run_id, waiting.call_id],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert answered.returncode == 0, answered.stderr
        assert f"approved {waiting.call_id}" in answered.stdout
        assert tool_bodies(out) == [4]


def test_temporals_own_cli_can_answer(rath_env: Settings, server_address: str) -> None:
    script = [tool_call_reply(("add", {"a": 3, "b": 4})), text_reply("7")]
    with FakeChatServer(script) as server:
        out = asking_agent(server, {"add": "ask"})(Session.from_user_message("3+4"))
        (waiting,) = eventually(lambda: rath.pending_approvals(out))
        assert out.run_id is not None
        answer = json.dumps({"call_id": waiting.call_id, "approve": True})
        done = subprocess.run(
            [
                str(temporal_binary()),
                "workflow",
                "update",
                "execute",
                "--address",
                server_address,
                "--workflow-id",
                out.run_id,
                "--name",
                "rath.approve",
                "--input",
                answer,
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert "approved" in done.stdout
        assert tool_bodies(out) == [7]


def test_an_unknown_run_id_is_an_error_on_the_command_line(rath_env: Settings) -> None:
    with pytest.raises(RunNotFoundError, match="no run has workflow id 'rath-nothing'"):
        rath.pending_approvals("rath-nothing")
    listed = subprocess.run(
        [str(Path(sys.executable).with_name("rath")), "approvals", "rath-nothing"],
        env=dict(os.environ, RATH_HOME=str(rath_env.home)),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert listed.returncode == 1
    assert listed.stderr.strip().splitlines()[-1] == (
        "rath approvals: no run has workflow id 'rath-nothing' in namespace 'default' "
        "(`temporal workflow list` shows the runs there)"
    )
    assert "Traceback" not in listed.stderr
