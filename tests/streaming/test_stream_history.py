"""What streaming costs in history, and that streaming and non-streaming runs replay."""

from __future__ import annotations

from pathlib import Path

from streaming.helpers import Recorder, trickling_server
from support import FAST, history_of
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHistory
from temporalio.worker import Replayer
from wires import fake_server, provider_for

from rath import flow
from rath.plugin import RathPlugin
from rath.session import Session
from rath.settings import Settings
from rath.testing import text_reply, tool_call_reply, truncated

STREAM_EVENTS = {
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED,
}


def _count(history: WorkflowHistory, kind: EventType.ValueType) -> int:
    return sum(1 for event in history.events if event.event_type == kind)


async def _replays(settings: Settings, history: WorkflowHistory) -> None:
    replayer = Replayer(workflows=[], plugins=[RathPlugin(settings=settings)])
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is None, result.replay_failure


async def test_a_run_without_on_event_has_no_stream_in_its_history(
    rath_env: Settings, client: Client, tmp_path: Path
) -> None:
    script = [tool_call_reply(("list_workspace_files", {"path": "."})), text_reply("ok")]
    with fake_server("openai", script) as server:
        agent = flow.Agent("x", provider=provider_for("openai", server.base_url), options=FAST)
        out = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        await out.ready()
    assert out.run_id is not None
    history = await history_of(client, out.run_id)
    assert not [e for e in history.events if e.event_type in STREAM_EVENTS]
    await _replays(rath_env, history)


async def test_history_grows_with_batches_not_tokens(rath_env: Settings, client: Client) -> None:
    answer = "streamed one character at a time, " * 8  # 280 deltas from the model
    seen = Recorder()
    with trickling_server([text_reply(answer)], pace=0.003) as server:
        agent = flow.Agent(
            "x", provider=provider_for("openai", server.base_url), options=FAST, on_event=seen
        )
        out = agent(Session.from_user_message("go"))
        await out.ready()
    assert seen.fold.rounds[1].content == answer == out.chunk_table.rows[-1].payload["content"]
    assert out.run_id is not None
    history = await history_of(client, out.run_id)
    signals = _count(history, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)
    # About a second of streaming in 0.2 s batches (the first at once): a handful of signals.
    assert 2 <= signals <= 12, signals
    assert len(seen.events) <= 3 * signals  # text merged per batch, plus finish and usage
    await _replays(rath_env, history)


async def test_a_streaming_run_with_a_retry_replays(
    rath_env: Settings, client: Client, tmp_path: Path
) -> None:
    script = [
        tool_call_reply(("list_workspace_files", {"path": "."}), content="looking"),
        truncated(text_reply("broken off " * 6), keep=0.5),
        text_reply("done"),
    ]
    seen = Recorder()
    with fake_server("anthropic", script) as server:
        agent = flow.Agent(
            "x", provider=provider_for("anthropic", server.base_url), options=FAST, on_event=seen
        )
        out = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        await out.ready()
    assert [e.key for e in seen.events if e.retry] == [(2, 2)]
    assert out.run_id is not None
    await _replays(rath_env, await history_of(client, out.run_id))
