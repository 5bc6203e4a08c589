"""``temporal workflow reset`` of Rath runs: no tool effect happens twice because of a reset.

A reset forward stops the agents its old run left running before it starts its own; a reset
agent run does not make again a tool call its original made (the call journal keys calls by
the original run). Each run's history, as the CLI downloads it, replays.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from ops_crews import Crew, CrewModel
from ops_support import (
    CLOSED,
    WAIT,
    assert_replays,
    child_runs,
    closed_record,
    lines,
    records_of_runs,
    row_kinds,
    settled_children,
    task_after,
)
from support import FAST, fake_provider
from temporal_cli import TemporalCli, until
from tool_app import append_line

from rath import flow
from rath.session import Session
from rath.settings import Settings
from rath.testing import (
    FakeChatServer,
    RecordedRequest,
    Reply,
    function_handler,
    gated,
    text_reply,
    tool_call_reply,
)

CHILD_DONE = "EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED"


@pytest.mark.parametrize("point", ["after_planner", "first_task"])
async def test_a_reset_forward_stops_the_old_agents_before_starting_its_own(
    rath_env: Settings, server_address: str, tmp_path: Path, point: str
) -> None:
    """Reset to just after the planner (the new run keeps the planner's result and re-derives
    the coders' ids), or to the first workflow task (everything again, with new ids)."""
    cli = TemporalCli(server_address)
    effects = tmp_path / "effects.txt"
    effects.with_name("effects.txt.go").touch()  # append_line does not hold
    gate = threading.Event()
    with FakeChatServer(function_handler(CrewModel(effects, gate))) as server:
        try:
            out = Crew(fake_provider(server))(Session.from_user_message("go"))
            workflow_id = out.run_id
            assert workflow_id is not None
            server.wait_for_requests(3, timeout=WAIT)  # the planner, then both coders (held)
            old_run = cli.run_id(workflow_id)
            if point == "first_task":
                cli.reset(workflow_id, type="FirstWorkflowTask")
            else:
                done = task_after(cli.history(workflow_id), lambda e: e["eventType"] == CHILD_DONE)
                cli.reset(workflow_id, event_id=done)

            def old_coders_cancelled() -> bool | None:
                cancelled = [
                    wid for wid, status in child_runs(cli, workflow_id) if status == "CANCELED"
                ]
                return len(cancelled) == 2 or None

            until(old_coders_cancelled, WAIT, "the old coders to be cancelled")
            gate.set()  # now the new coders' calls (and the dead old ones') are answered
            assert cli.wait_status(workflow_id, CLOSED) == "COMPLETED"
            planners = 2 if point == "first_task" else 1
            children = settled_children(cli, workflow_id, 4 + planners)
        finally:
            gate.set()
    assert sorted(lines(effects)) == ["code a", "code b"]  # each coder's effect once
    statuses = sorted((wid.split("-")[1], status) for wid, status in children)
    assert statuses == [
        ("coder_a", "CANCELED"),
        ("coder_a", "COMPLETED"),
        ("coder_b", "CANCELED"),
        ("coder_b", "COMPLETED"),
        *[("planner", "COMPLETED")] * planners,
    ]
    coders = {wid for wid, _ in children if "coder" in wid}
    records = [r.status for rs in records_of_runs(coders).values() for r in rs]
    # After the planner the coders' ids are the same: the new runs' records replace the old.
    expected = ["completed"] * 2 + (["cancelled"] * 2 if point == "first_task" else [])
    assert sorted(records) == sorted(expected)
    assert closed_record(out.id).status == "completed"
    new_run = cli.run_id(workflow_id)
    assert new_run != old_run and cli.status(workflow_id, old_run) == "TERMINATED"
    await assert_replays(cli, rath_env, workflow_id, new_run)
    await assert_replays(cli, rath_env, workflow_id, old_run)


async def test_a_reset_agent_does_not_repeat_a_tool_call_its_original_made(
    rath_env: Settings, server_address: str, tmp_path: Path
) -> None:
    cli = TemporalCli(server_address)
    effects = tmp_path / "effects.txt"
    effects.with_name("effects.txt.go").touch()
    gate = threading.Event()

    def model(request: RecordedRequest) -> Reply:
        if request.messages[-1]["role"] != "tool":
            return tool_call_reply(("append_line", {"path": str(effects), "text": "x"}))
        return gated(text_reply("noted"), gate)

    with FakeChatServer(function_handler(model)) as server:
        try:
            agent = flow.Agent(
                "Write.", provider=fake_provider(server), tools=[append_line], options=FAST
            )
            out = agent(Session.from_user_message("write"))
            workflow_id = out.run_id
            assert workflow_id is not None
            server.wait_for_requests(2, timeout=WAIT)  # the tool ran; the second call is held
            assert lines(effects) == ["x"]
            history = cli.history(workflow_id)
            llm_done = _first_llm_completion(history)
            old_run = cli.run_id(workflow_id)
            # Back to the task that scheduled the tool call: the new run schedules it again.
            cli.reset(
                workflow_id, event_id=task_after(history, lambda e: int(e["eventId"]) == llm_done)
            )
            gate.set()
            assert cli.wait_status(workflow_id, CLOSED) == "COMPLETED"
        finally:
            gate.set()
    assert lines(effects) == ["x"]  # the journal gave the new run the original's result
    record = closed_record(out.id)
    assert record.status == "completed" and record.workflow_id == workflow_id
    assert [k for k in row_kinds(out.id) if k != "system"] == [
        "user",
        "assistant",
        "tool_result",
        "assistant",
    ]
    await assert_replays(cli, rath_env, workflow_id, cli.run_id(workflow_id))
    await assert_replays(cli, rath_env, workflow_id, old_run)


def _first_llm_completion(history: dict[str, object]) -> int:
    """The event id of the first ``rath.llm.complete`` activity's completion."""
    events = history["events"]
    assert isinstance(events, list)
    scheduled = next(
        e["eventId"]
        for e in events
        if e["eventType"] == "EVENT_TYPE_ACTIVITY_TASK_SCHEDULED"
        and e["activityTaskScheduledEventAttributes"]["activityType"]["name"] == "rath.llm.complete"
    )
    return next(
        int(e["eventId"])
        for e in events
        if e["eventType"] == "EVENT_TYPE_ACTIVITY_TASK_COMPLETED"
        and e["activityTaskCompletedEventAttributes"]["scheduledEventId"] == scheduled
    )
