"""``temporal workflow cancel`` of an agent run: recorded as cancelled, with the rows it made.

The cancel comes from the real ``temporal`` CLI, as an operator would send it, while the run
waits on a model call, on a person's approval, or on a tool call in flight.
"""

from __future__ import annotations

from pathlib import Path

from ops_support import (
    WAIT,
    closed_record,
    opened_gate,
    pending_approvals,
    record_of,
    row_kinds,
    tool_results,
)
from support import FAST, fake_provider
from temporal_cli import TemporalCli, until
from tool_app import add, append_line

from rath import flow
from rath.session import Session
from rath.settings import Settings
from rath.store import current_store
from rath.store.call_journal import CallJournal
from rath.testing import FakeChatServer, gated, text_reply, tool_call_reply

ASSISTANT_AND_TOOL = ["user", "assistant", "tool_result"]
NO_REASON = "cancelled: cancel requested (no reason given)"  # the CLI sends none


def test_cancel_mid_model_call_keeps_the_rows_made_before(
    rath_env: Settings, server_address: str
) -> None:
    cli = TemporalCli(server_address)
    with opened_gate() as gate:
        script = [tool_call_reply(("add", {"a": 1, "b": 2})), gated(text_reply("3"), gate)]
        with FakeChatServer(script) as server:
            agent = flow.Agent("Add.", provider=fake_provider(server), tools=[add], options=FAST)
            out = agent(Session.from_user_message("1+2"))
            assert out.run_id is not None
            server.wait_for_requests(2, timeout=WAIT)  # the second model call is held
            cli.cancel(out.run_id)
            assert cli.wait_status(out.run_id, ["CANCELED", "FAILED", "COMPLETED"]) == "CANCELED"
    record = closed_record(out.id)
    assert record.status == "cancelled"
    assert record.error == NO_REASON
    assert record.workflow_id == out.run_id and record.root is not None
    assert [k for k in row_kinds(out.id) if k != "system"] == ASSISTANT_AND_TOOL
    assert tool_results(out.id) == ["3"]
    assert record.usage.get("total_tokens") == 15  # the first model call's


def test_cancel_while_waiting_for_approval(rath_env: Settings, server_address: str) -> None:
    cli = TemporalCli(server_address)
    script = [tool_call_reply(("add", {"a": 1, "b": 2})), text_reply("3")]
    with FakeChatServer(script) as server:
        agent = flow.Agent(
            "Add.",
            provider=fake_provider(server),
            tools=[add],
            tool_policy={"add": "ask"},
            options=FAST,
        )
        out = agent(Session.from_user_message("1+2"))
        assert out.run_id is not None
        run_id = out.run_id
        (waiting,) = until(lambda: pending_approvals(cli, run_id), WAIT, "the approval")
        assert waiting["tool"] == "add"
        cli.cancel(run_id)
        assert cli.wait_status(run_id, ["CANCELED", "FAILED", "COMPLETED"]) == "CANCELED"
        assert len(server.requests) == 1
    record = closed_record(out.id)
    assert record.status == "cancelled"
    assert record.error == f"{NO_REASON}; waiting for approval, not run: add (call_0_add)"
    assert [k for k in row_kinds(out.id) if k != "system"] == ASSISTANT_AND_TOOL
    (body,) = tool_results(out.id)
    assert '"error_kind": "cancelled"' in body and "waited for approval" in body


def test_cancel_during_a_tool_call_names_its_idempotency_key(
    rath_env: Settings, server_address: str, tmp_path: Path
) -> None:
    cli = TemporalCli(server_address)
    effect = tmp_path / "effect.txt"
    release = effect.with_name(effect.name + ".go")  # append_line holds until this exists
    script = [
        tool_call_reply(("append_line", {"path": str(effect), "text": "x"})),
        text_reply("ok"),
    ]
    with FakeChatServer(script) as server:
        options = FAST.model_copy(update={"tool_heartbeat_seconds": 2})
        agent = flow.Agent(
            "Write.", provider=fake_provider(server), tools=[append_line], options=options
        )
        out = agent(Session.from_user_message("write"))
        assert out.run_id is not None
        try:
            until(lambda: effect.exists() or None, WAIT, "the tool to start")
            cli.cancel(out.run_id)
            assert cli.wait_status(out.run_id, ["CANCELED", "FAILED", "COMPLETED"]) == "CANCELED"
        finally:
            release.touch()
    record = closed_record(out.id)
    assert record.error is not None
    prefix = f"{NO_REASON}; in flight, outcome unknown: append_line (call_0_append_line) key "
    assert record.error.startswith(prefix), record.error
    key = record.error.removeprefix(prefix)
    assert key.startswith(f"{out.run_id}/")
    journal = CallJournal(current_store().objects).get(key)
    assert journal is not None  # the very key the tool call was journalled under
    (body,) = tool_results(out.id)
    assert key in body and '"error_kind": "cancelled"' in body


def test_a_run_continued_as_new_keeps_one_record_then_records_its_cancel(
    rath_env: Settings, server_address: str
) -> None:
    cli = TemporalCli(server_address)
    options = FAST.model_copy(update={"continue_as_new_after_rounds": 1})
    with opened_gate() as gate:
        script = [
            tool_call_reply(("add", {"a": 1, "b": 2})),
            tool_call_reply(("add", {"a": 3, "b": 4})),
            gated(text_reply("done"), gate),
        ]
        with FakeChatServer(script) as server:
            agent = flow.Agent("Add.", provider=fake_provider(server), tools=[add], options=options)
            out = agent(Session.from_user_message("add twice"))
            assert out.run_id is not None
            server.wait_for_requests(3, timeout=WAIT)  # in its third run (two continue-as-new)
            running = record_of(out.id)
            assert running.status == "running" and running.workflow_id == out.run_id
            runs = cli.list(f"WorkflowId = '{out.run_id}'")
            assert len(runs) == 3  # one workflow id, three runs
            cli.cancel(out.run_id)
            assert cli.wait_status(out.run_id, ["CANCELED", "FAILED", "COMPLETED"]) == "CANCELED"
    record = closed_record(out.id)
    assert record.status == "cancelled" and record.workflow_id == out.run_id
    assert record.created == running.created  # the same record, from the first run
    assert tool_results(out.id) == ["3", "7"]  # the rows of every run
