"""What a run leaves in Temporal history: lanes, flat growth, continue-as-new, no secrets."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path

import pytest
from support import FAST, activity_events, fake_provider, history_of, kinds, tool_bodies
from temporalio.api.enums.v1 import EventType
from temporalio.api.sdk.v1 import WorkflowMetadata
from temporalio.client import Client

from rath import flow
from rath.contracts.runs import LoopResult
from rath.errors import RunFailedError
from rath.flow import Provider
from rath.llm.provider import provider_spec
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, error_reply, text_reply, tool_call_reply


def _call_index_by_scheduled_id(history: object) -> dict[int, int]:
    out: dict[int, int] = {}
    for event in history.events:  # type: ignore[attr-defined]
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            attrs = event.activity_task_scheduled_event_attributes
            if attrs.activity_type.name == "rath.tools.run":
                out[event.event_id] = json.loads(attrs.input.payloads[0].data)["call_index"]
    return out


async def test_same_resource_key_is_serial_and_different_keys_overlap(
    rath_env: Settings, client: Client, tmp_path: Path
) -> None:
    script = [
        tool_call_reply(
            ("run_shell_command", {"cmd": "echo one > one.txt"}),
            ("write_workspace_file", {"path": "a.txt", "content": "A"}),
            ("run_shell_command", {"cmd": "cat one.txt"}),
            ("write_workspace_file", {"path": "b.txt", "content": "B"}),
        ),
        text_reply("done"),
    ]
    with FakeChatServer(script) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=FAST)
        out = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        bodies = tool_bodies(out)
    # Results come back in the model's call order, whatever order they finished in.
    assert bodies[0]["exit_code"] == 0
    assert bodies[1] == {"bytes_written": 1}
    assert bodies[2]["stdout"] == "one\n"  # the second shell call ran after the first
    assert bodies[3] == {"bytes_written": 1}
    assert out.run_id is not None
    history = await history_of(client, out.run_id)
    index_of = _call_index_by_scheduled_id(history)
    order = [(kind, index_of[sid]) for kind, sid in activity_events(history) if sid in index_of]
    position = {item: n for n, item in enumerate(order)}
    # Same lane ("exec"): call 2 is scheduled only after call 0 completed.
    assert position[("completed", 0)] < position[("scheduled", 2)]
    # Different lanes: the writes (calls 1 and 3) are both scheduled before call 0 completes.
    assert position[("scheduled", 1)] < position[("completed", 0)]
    assert position[("scheduled", 3)] < position[("completed", 0)]


async def test_history_grows_with_new_content_not_with_the_transcript(
    rath_env: Settings, client: Client, tmp_path: Path
) -> None:
    rounds = 16
    content = "x" * 20_000
    script = [
        tool_call_reply(("write_workspace_file", {"path": f"f{i}.txt", "content": content}))
        for i in range(rounds)
    ] + [text_reply("done")]
    with FakeChatServer(script) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=FAST)
        out = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        assert len(kinds(out)) == 2 + 2 * rounds
    assert out.run_id is not None
    history = await history_of(client, out.run_id)
    per_round: list[int] = []
    for event in history.events:
        attrs = event.activity_task_scheduled_event_attributes
        if (
            event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
            and attrs.activity_type.name == "rath.llm.complete"
        ):
            per_round.append(0)
        if per_round:
            per_round[-1] += event.ByteSize()
    early, late = per_round[2], per_round[rounds - 1]
    # Flat: a late round costs about what an early one did, although the transcript is ~8x
    # longer; and no round carries the 20 KB it wrote (the content stays in the chunk store).
    # The first round is the largest (the sandbox claim; the store-tagged queue names), ~5 KB.
    assert late <= early * 1.15, per_round
    assert max(per_round) < 6_000, per_round


def test_long_sessions_continue_as_new_with_the_same_session_id(
    rath_env: Settings, tmp_path: Path
) -> None:
    options = FAST.model_copy(update={"continue_as_new_after_rounds": 2})
    script = [
        tool_call_reply(("write_workspace_file", {"path": f"{i}.txt", "content": str(i)}))
        for i in range(5)
    ] + [text_reply("done")]
    with FakeChatServer(script) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=options)
        user = Session.from_user_message("go").to("local", spec=tmp_path)
        out = agent(user)
        expected_id = out.id
        assert kinds(out) == ["user"] + ["assistant", "tool_result"] * 5 + ["assistant"]
    assert out.id == expected_id
    assert out.parent_session_ids == (user.id, agent.agent.agent_session.id)
    assert [b["bytes_written"] for b in tool_bodies(out)] == [1] * 5


async def test_runs_continued_as_new_are_visible_in_temporal(
    rath_env: Settings, client: Client, tmp_path: Path
) -> None:
    options = FAST.model_copy(update={"continue_as_new_after_rounds": 1})
    script = [tool_call_reply(("workspace_path_exists", {"path": "a"}))] * 2 + [text_reply("ok")]
    with FakeChatServer(script) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=options)
        out = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        out.synchronize()
    runs = [wf async for wf in client.list_workflows(f"WorkflowId = '{out.run_id}'")]
    assert len(runs) == 3


SECRET = "sk-test-NOT-A-REAL-KEY-7f3a9c2e5b"


async def test_api_key_never_reaches_history_or_logs(
    rath_env: Settings, client: Client, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    script = [tool_call_reply(("workspace_path_exists", {"path": "a"})), text_reply("ok")]
    with FakeChatServer(script) as server:
        provider = fake_provider(server, api_key=SECRET)
        agent = flow.Agent("x", provider=provider, options=FAST)
        out = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        out.synchronize()
        # The key did reach the model endpoint...
        assert server.requests[0].headers["authorization"] == f"Bearer {SECRET}"
    assert out.run_id is not None
    # ...but not the workflow's history (inputs, results, memo, search attributes) or logs.
    history = await history_of(client, out.run_id)
    assert SECRET not in history.to_json()
    description = await client.get_workflow_handle(out.run_id).describe()
    assert SECRET not in str(description.raw_description)
    assert SECRET not in caplog.text


async def test_auth_error_messages_are_redacted(rath_env: Settings, client: Client) -> None:
    reply = error_reply(401, f"Incorrect API key provided: {SECRET}")
    with FakeChatServer([reply]) as server:
        provider = fake_provider(server, api_key=SECRET)
        out = flow.Agent("x", provider=provider, options=FAST)(Session.from_user_message("go"))
        with pytest.raises(RunFailedError, match="HTTP 401") as info:
            out.synchronize()
    assert SECRET not in str(info.value)
    assert out.run_id is not None
    assert SECRET not in (await history_of(client, out.run_id)).to_json()


async def test_runs_carry_static_details_for_the_web_ui(rath_env: Settings, client: Client) -> None:
    with FakeChatServer([text_reply("hi")]) as server:
        agent = flow.Agent("Greet people warmly.", provider=fake_provider(server), options=FAST)
        user = Session.from_user_message("hello")
        out = agent(user)
        await out
    assert out.run_id is not None
    described = await client.get_workflow_handle(out.run_id).describe()
    details = await described.static_details()
    assert details is not None
    assert "**agent** agent" in details and "**prompt** Greet people warmly." in details
    assert f"**input session** {user.id}" in details and f"**output session** {out.id}" in details
    assert (await described.static_summary() or "").startswith("agent · ")
    metadata = await client.get_workflow_handle(out.run_id).query(
        "__temporal_workflow_metadata", result_type=WorkflowMetadata
    )
    assert metadata.current_details.startswith(
        f"**agent** · done · 15 tokens · output session {out.id}"
    )
    assert metadata.current_details.endswith("last reply: hi")


class Relay(flow.Workflow):
    def __init__(self, provider: Provider) -> None:
        super().__init__()
        self.writer = flow.Agent("Write.", provider=provider, options=FAST)

    def forward(self, session: Session) -> Session:
        return self.writer(session)


async def test_forward_and_compress_runs_carry_static_details(
    rath_env: Settings, client: Client
) -> None:
    user = Session.from_user_message("hello")
    with FakeChatServer([text_reply("hi"), text_reply("short")]) as server:
        provider = fake_provider(server)
        forwarded = Relay(provider)(user)
        await forwarded
        squashed = flow.Compressor("Summarise,  keeping names.", provider)(user)
        await squashed
    label = provider_spec(provider, rath_env).label()
    expected = [
        (
            forwarded,
            [
                "**workflow** Relay (`",
                f"**agents** writer ({label})",
                f"**input session** {user.id}",
                f"**output session** {forwarded.id}",
            ],
        ),
        (
            squashed,
            [
                "**agent** compress",
                f"**model** {label}",
                "**prompt** Summarise, keeping names.",
                "**instruction** (default)",
                f"**input session** {user.id}",
                f"**output session** {squashed.id}",
            ],
        ),
    ]
    for out, lines in expected:
        assert out.run_id is not None
        described = await client.get_workflow_handle(out.run_id).describe()
        details = await described.static_details() or ""
        assert all(line in details for line in lines), details
        assert await described.static_summary()


async def test_a_sandbox_close_run_says_which_sandbox(rath_env: Settings, client: Client) -> None:
    script = [tool_call_reply(("write_workspace_file", {"path": "a", "content": "A"}))]
    with FakeChatServer([*script, text_reply("done")]) as server:
        placed = Session.from_user_message("go").to("local")  # a workspace Rath allocates
        out = flow.Agent("x", provider=fake_provider(server), options=FAST)(placed)
        out.synchronize()
    placed.release()
    assert out.release()  # the last holder: the sandbox was closed by a rath.CloseSandbox run
    assert out.sandbox is not None
    query = f"WorkflowType = 'rath.CloseSandbox' AND TaskQueue = '{rath_env.task_queue}'"
    deadline = time.monotonic() + 20  # visibility is eventually consistent: poll, bounded
    while not (runs := [wf.id async for wf in client.list_workflows(query)]):
        assert time.monotonic() < deadline, "the close run never showed in the list"
        await asyncio.sleep(0.2)
    described = await client.get_workflow_handle(runs[0]).describe()
    sandbox = out.sandbox.sandbox_id
    assert await described.static_summary() == f"close sandbox {sandbox.hex[:8]} · local"
    details = await described.static_details() or ""
    assert f"**sandbox** {sandbox}" in details and "**delete workspace** yes" in details


async def test_a_finished_run_reads_at_a_glance(
    rath_env: Settings, client: Client, tmp_path: Path
) -> None:
    # The run's result payload (the Web UI's Result pane) opens with the final reply, the
    # transcript's size and the usage, across continue-as-new; clients still get a Session.
    options = FAST.model_copy(update={"continue_as_new_after_rounds": 1})
    look = ("workspace_path_exists", {"path": "a"})
    script = [tool_call_reply(look), tool_call_reply(look), text_reply("All   checked.\nBye")]
    with FakeChatServer(script) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=options)
        out = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        rows = len(out.chunk_table.rows)
    assert type(out) is Session and rows == 6
    handle = client.get_workflow_handle(out.run_id or "", result_type=LoopResult)
    result = await handle.result()
    assert (result.last_reply, result.rows, result.id) == ("All checked. Bye", 6, out.id)
    payload = json.loads(
        (await handle.fetch_history())
        .events[-1]
        .workflow_execution_completed_event_attributes.result.payloads[0]
        .data
    )
    assert list(payload)[:3] == ["last_reply", "rows", "usage"]

    with FakeChatServer([tool_call_reply(look)]) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=FAST, max_tool_rounds=1)
        cut = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        cut.synchronize()
    result = await client.get_workflow_handle(cut.run_id or "", result_type=LoopResult).result()
    assert (result.last_reply, result.rows) == (None, 3)


async def test_new_runs_record_no_patch_markers(
    rath_env: Settings, client: Client, tmp_path: Path
) -> None:
    """Runs started with today's code version carry it in their input instead of patches."""
    write = tool_call_reply(("write_workspace_file", {"path": "a", "content": "A"}))
    with FakeChatServer([write, text_reply("done"), text_reply("hi")]) as server:
        provider = fake_provider(server)
        agent = flow.Agent("x", provider=provider, options=FAST)
        placed = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        await placed
        forwarded = Relay(provider)(Session.from_user_message("hello"))
        await forwarded
    assert placed.run_id is not None and forwarded.run_id is not None
    forward = await history_of(client, forwarded.run_id)
    children = [
        e.child_workflow_execution_started_event_attributes.workflow_execution.workflow_id
        for e in forward.events
        if e.event_type == EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED
    ]
    assert len(children) == 1
    for run_id in (placed.run_id, forwarded.run_id, *children):
        events = (await history_of(client, run_id)).events
        markers = [
            e.marker_recorded_event_attributes.marker_name
            for e in events
            if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
        ]
        assert "core_patch" not in markers, (run_id, markers)
        upserts = EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES
        assert not [e for e in events if e.event_type == upserts], run_id
