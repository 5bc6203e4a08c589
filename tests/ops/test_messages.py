"""Signals, queries and updates from the ``temporal`` CLI, as an operator would send them.

An agent run answers its queries (``progress``, ``graph``, ``pending_approvals``) to the CLI,
takes an approval through Temporal's own ``update execute`` (refusing one for a call that is
not waiting, without harm to the run), and shrugs off signals it did not ask for.
"""

from __future__ import annotations

import json
from pathlib import Path

from ops_support import WAIT, closed_record, lines, pending_approvals, tool_results
from support import FAST, fake_provider
from temporal_cli import TemporalCli, until
from tool_app import append_line

from rath import flow
from rath.contracts.approvals import APPROVE_UPDATE
from rath.contracts.budget import GRANT_SIGNAL
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply, tool_call_reply


def test_queries_update_and_stray_signals_from_the_cli(
    rath_env: Settings, server_address: str, tmp_path: Path
) -> None:
    cli = TemporalCli(server_address)
    effects = tmp_path / "effects.txt"
    effects.with_name("effects.txt.go").touch()  # append_line does not hold its call
    call = ("append_line", {"path": str(effects), "text": "once"})
    with FakeChatServer([tool_call_reply(call), text_reply("done")]) as server:
        agent = flow.Agent(
            "Write.",
            provider=fake_provider(server),
            tools=[append_line],
            tool_policy={"append_line": "ask"},
            options=FAST,
        )
        user = Session.from_user_message("write once")
        out = agent(user)
        assert out.run_id is not None
        run_id = out.run_id
        (waiting,) = until(lambda: pending_approvals(cli, run_id), WAIT, "the approval")

        # Queries: the transcript so far (by reference) and the run's sessions.
        (progress,) = cli.query(run_id, "progress")
        assert progress["rounds"] == 1 and progress["transcript"]["rows"]
        (graph,) = cli.query(run_id, "graph")
        assert str(user.id) in {node["id"] for node in graph["nodes"]}

        # Signals nobody asked for: a budget grant for no question, and an unknown name.
        cli.signal(run_id, GRANT_SIGNAL, {"seq": 99, "granted": True})
        cli.signal(run_id, "no.such.signal", {"x": 1})

        # An update for a call that is not waiting is refused; the run is untouched.
        refused = cli.run_with_errors(
            "workflow", "update", "execute", "--workflow-id", run_id, "--name", APPROVE_UPDATE,
            "--input", json.dumps({"call_id": "call_9_nothing", "approve": True}),
        )  # fmt: skip
        assert (
            "no tool call 'call_9_nothing' is waiting for approval (waiting: call_0_append_line)"
            in refused
        )
        assert cli.status(run_id) == "RUNNING"
        assert lines(effects) == []

        # Temporal's own update approves the waiting call: it runs once and the run finishes.
        answer = cli.update(
            run_id, APPROVE_UPDATE, {"call_id": waiting["call_id"], "approve": True}
        )
        assert "approved" in answer
        assert cli.wait_status(run_id, ["COMPLETED", "FAILED", "CANCELED"]) == "COMPLETED"
        assert len(server.requests) == 2
    assert lines(effects) == ["once"]
    assert tool_results(out.id) == ['"appended"']
    record = closed_record(out.id)
    assert record.status == "completed" and record.error is None
