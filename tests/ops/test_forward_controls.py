"""Temporal's controls on a durable forward: its agents follow it, and record what happened.

Cancelling a forward cancels the agents it runs, each recording itself as cancelled; an agent
that fails cancels its siblings and fails the forward with its error. No child ever ends
*Terminated* because its parent closed.
"""

from __future__ import annotations

import threading
from pathlib import Path

from ops_crews import Crew, CrewModel, Pair
from ops_support import (
    CLOSED,
    WAIT,
    closed_record,
    opened_gate,
    records_of_runs,
    settled_children,
)
from support import fake_provider
from temporal_cli import TemporalCli

from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, function_handler


def _effects(tmp_path: Path) -> Path:
    effects = tmp_path / "effects.txt"
    effects.with_name("effects.txt.go").touch()  # append_line does not hold
    return effects


def test_cancelling_a_forward_cancels_its_running_agents(
    rath_env: Settings, server_address: str, tmp_path: Path
) -> None:
    cli = TemporalCli(server_address)
    effects = _effects(tmp_path)
    with (
        opened_gate() as gate,
        FakeChatServer(function_handler(CrewModel(effects, gate))) as server,
    ):
        out = Crew(fake_provider(server))(Session.from_user_message("go"))
        assert out.run_id is not None
        server.wait_for_requests(3, timeout=WAIT)  # the planner, then both coders (held)
        cli.cancel(out.run_id)
        assert cli.wait_status(out.run_id, CLOSED) == "CANCELED"
        children = settled_children(cli, out.run_id, 3)
    assert [status for _, status in children] == ["CANCELED", "CANCELED", "COMPLETED"]
    assert not effects.exists()  # the coders were stopped before their tool calls
    coders = {wid for wid, _ in children if "coder" in wid}
    for wid, records in records_of_runs(coders).items():
        (record,) = records
        assert record.status == "cancelled"
        assert record.error == f"cancelled: its forward run {out.run_id!r} was cancelled", wid
    record = closed_record(out.id)
    assert record.status == "cancelled"
    assert record.error is not None
    assert record.error.startswith("cancelled: cancel requested (no reason given); stopped 2")
    assert all(wid in record.error for wid in coders)


def test_a_failing_agent_cancels_its_siblings_and_fails_the_forward(
    rath_env: Settings, server_address: str, tmp_path: Path
) -> None:
    cli = TemporalCli(server_address)
    model = CrewModel(_effects(tmp_path), gate := threading.Event())
    with FakeChatServer(function_handler(model)) as server:
        try:
            out = Pair(fake_provider(server))(Session.from_user_message("go"))
            assert out.run_id is not None
            server.wait_for_requests(2, timeout=WAIT)  # the writer's call is held
            # The forward fails without waiting for the writer.
            assert cli.wait_status(out.run_id, CLOSED) == "FAILED"
            children = settled_children(cli, out.run_id, 2)
        finally:
            gate.set()
    statuses = {wid.split("-")[1]: status for wid, status in children}
    assert statuses == {"checker": "FAILED", "writer": "CANCELED"}
    record = closed_record(out.id)
    assert record.status == "failed" and record.error is not None
    assert "agent 'checker'" in record.error and "malformed" in record.error
    writer = next(wid for wid, _ in children if "writer" in wid)
    (written,) = records_of_runs({writer})[writer]
    assert written.status == "cancelled" and written.error is not None
    assert written.error.startswith(f"cancelled: its forward run {out.run_id!r} failed: ")


def test_a_terminated_forward_leaves_no_agent_terminated(
    rath_env: Settings, server_address: str, tmp_path: Path
) -> None:
    cli = TemporalCli(server_address)
    effects = _effects(tmp_path)
    with (
        opened_gate() as gate,
        FakeChatServer(function_handler(CrewModel(effects, gate))) as server,
    ):
        out = Crew(fake_provider(server))(Session.from_user_message("go"))
        assert out.run_id is not None
        server.wait_for_requests(3, timeout=WAIT)  # the planner, then both coders (held)
        cli.terminate(out.run_id, reason="operator terminate")
        assert cli.wait_status(out.run_id, CLOSED) == "TERMINATED"
        # The parent-close policy cancels the coders; each records itself.
        children = settled_children(cli, out.run_id, 3)
    assert [status for _, status in children] == ["CANCELED", "CANCELED", "COMPLETED"]
    coders = {wid for wid, _ in children if "coder" in wid}
    for records in records_of_runs(coders).values():
        assert [record.status for record in records] == ["cancelled"]
        assert records[0].error == f"cancelled: its parent run {out.run_id!r} cancelled it"
