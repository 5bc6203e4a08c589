"""Determinism guard: recorded histories must replay against the current workflow code.

``histories/<scenario>-<commit>.json`` were recorded by ``record_histories.py`` running that
commit's code; older commits' files stand for runs in flight when workers are upgraded.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from replay_modules import ReplaySquad
from support import FAST, fake_provider, history_of
from temporalio import workflow
from temporalio.client import Client, WorkflowHistory
from temporalio.worker import Replayer, UnsandboxedWorkflowRunner

from rath import flow
from rath.plugin import RathPlugin
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply, tool_call_reply

HISTORY_DIR = Path(__file__).parent / "histories"
HISTORIES = sorted(HISTORY_DIR.glob("*.json"))
WORKFLOW_TYPES = {"rath.SessionLoop", "rath.Forward", "rath.Compress", "rath.CloseSandbox"}
# Recorded before the layers refactor (61a4612): proves it kept runs in flight replayable.
PRE_REFACTOR = "8dfdc9a"


def _history(path: Path) -> WorkflowHistory:
    return WorkflowHistory.from_json(path.stem, path.read_text())


def _workflow_type(history: WorkflowHistory) -> str:
    started = history.events[0].workflow_execution_started_event_attributes
    return started.workflow_type.name


def _replayer(settings: Settings) -> Replayer:
    # A recorded rath.Forward rebuilds its user module from the worker's registered classes.
    flow.register_workflow_class(ReplaySquad)
    return Replayer(workflows=[], plugins=[RathPlugin(settings=settings)])


def test_committed_histories_cover_every_workflow_type() -> None:
    recorded: dict[str, set[str]] = {}
    for path in HISTORIES:
        commit = path.stem.rpartition("-")[2]
        recorded.setdefault(commit, set()).add(_workflow_type(_history(path)))
    assert recorded.get(PRE_REFACTOR) == WORKFLOW_TYPES
    assert all(types <= WORKFLOW_TYPES for types in recorded.values()), recorded


@pytest.mark.parametrize("path", HISTORIES, ids=[p.stem for p in HISTORIES])
async def test_committed_history_replays(path: Path, rath_env: Settings) -> None:
    replayer = _replayer(rath_env)
    result = await replayer.replay_workflow(_history(path), raise_on_replay_failure=False)
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
    loops = [p for p in HISTORIES if _workflow_type(_history(p)) == "rath.SessionLoop"]
    history = _history(loops[0])
    replayer = Replayer(workflows=[ChangedSessionLoop], workflow_runner=UnsandboxedWorkflowRunner())
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is not None


class SwappedSquad(ReplaySquad):
    """``ReplaySquad`` starting its agents in the other order (a different child id first)."""

    def forward(self, session: Session) -> Session:
        reviewed = self.reviewer(session.fork())
        written = self.writer(session.fork())
        return written.merge(reviewed)


async def test_forward_replay_reruns_the_user_module(rath_env: Settings) -> None:
    history = _history(HISTORY_DIR / f"forward-{PRE_REFACTOR}.json")
    replayer = _replayer(rath_env)
    SwappedSquad.__module__, SwappedSquad.__qualname__ = "replay_modules", "ReplaySquad"
    flow.register_workflow_class(SwappedSquad)  # under the recorded target, for this replay
    try:
        result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    finally:
        flow.register_workflow_class(ReplaySquad)
    assert result.replay_failure is not None
    assert "rath-writer" in str(result.replay_failure)
