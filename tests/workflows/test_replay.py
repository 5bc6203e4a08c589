"""Determinism guard: recorded histories must replay against the current workflow code."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import FAST, fake_provider, history_of
from temporalio import workflow
from temporalio.client import Client, WorkflowHistory
from temporalio.worker import Replayer, UnsandboxedWorkflowRunner

from rath import flow
from rath.plugin import RathPlugin
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply, tool_call_reply

HISTORIES = sorted((Path(__file__).parent / "histories").glob("*.json"))


def _replayer(settings: Settings) -> Replayer:
    return Replayer(workflows=[], plugins=[RathPlugin(settings=settings)])


def test_there_are_committed_histories() -> None:
    assert len(HISTORIES) >= 3


@pytest.mark.parametrize("path", HISTORIES, ids=[p.stem for p in HISTORIES])
async def test_committed_history_replays(path: Path, rath_env: Settings) -> None:
    history = WorkflowHistory.from_json(path.stem, path.read_text())
    result = await _replayer(rath_env).replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is None, result.replay_failure


async def test_fresh_history_replays(rath_env: Settings, client: Client, tmp_path: Path) -> None:
    script = [
        tool_call_reply(
            ("write_workspace_file", {"path": "a.txt", "content": "A"}),
            ("run_shell_command", {"cmd": "ls"}),
        ),
        text_reply("ok"),
    ]
    with FakeChatServer(script) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=FAST)
        out = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        out.synchronize()
    assert out.run_id is not None
    history = await history_of(client, out.run_id)
    result = await _replayer(rath_env).replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is None


@workflow.defn(name="rath.SessionLoop")
class ChangedSessionLoop:
    """A session loop whose first command differs from the recorded one (a timer)."""

    @workflow.run
    async def run(self, input: object) -> None:
        await workflow.sleep(1)


async def test_replay_catches_nondeterminism(rath_env: Settings) -> None:
    history = WorkflowHistory.from_json("x", HISTORIES[0].read_text())
    replayer = Replayer(workflows=[ChangedSessionLoop], workflow_runner=UnsandboxedWorkflowRunner())
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is not None
