"""What the operations tests share: the CLI, catalog reads, held model replies, effect files."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from uuid import UUID

from temporal_cli import TemporalCli, until
from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer

from rath.contracts.approvals import PENDING_APPROVALS_QUERY
from rath.plugin import RathPlugin
from rath.session import ChunkKind
from rath.session.persistence import load_session
from rath.settings import Settings
from rath.store import SessionRecord, current_catalog

CLOSED = ("COMPLETED", "FAILED", "CANCELED", "TERMINATED", "TIMED_OUT")
WAIT = 30.0


def record_of(session_id: UUID) -> SessionRecord:
    """The catalog record of a session (it must exist)."""
    record = current_catalog().get(session_id)
    assert record is not None, f"no catalog record of session {session_id}"
    return record


def closed_record(session_id: UUID, timeout: float = WAIT) -> SessionRecord:
    """The session's record once it no longer says ``running`` (bounded)."""

    def probe() -> SessionRecord | None:
        record = current_catalog().get(session_id)
        return record if record is not None and record.status != "running" else None

    return until(probe, timeout, f"the record of {session_id} to close")


def row_kinds(session_id: UUID) -> list[str]:
    """The kinds of the rows a session's record keeps (loaded from the store)."""
    return [row.kind.value for row in load_session(session_id).chunk_table.rows]


def tool_results(session_id: UUID) -> list[str]:
    """The contents of a stored session's tool-result rows."""
    rows = load_session(session_id).chunk_table.rows
    return [row.payload["content"] for row in rows if row.kind is ChunkKind.TOOL_RESULT]


def pending_approvals(cli: TemporalCli, workflow_id: str) -> list[dict[str, object]] | None:
    """The run's waiting tool calls, by the CLI's query; ``None`` until it has some.

    A lazily started run may not exist yet when asked: that is "none yet" too.
    """
    out = cli.run(
        "workflow",
        "query",
        "--workflow-id",
        workflow_id,
        "--name",
        PENDING_APPROVALS_QUERY,
        "--output",
        "json",
        check=False,
    )
    try:
        answer = json.loads(out)
    except ValueError:
        return None
    found = answer.get("queryResult") if isinstance(answer, dict) else answer
    (waiting,) = found or [None]  # the CLI prints the handler's answer as a list of one
    return list(waiting or ()) or None


def lines(path: Path) -> list[str]:
    """The lines a tool wrote to ``path`` (none when it does not exist)."""
    return path.read_text().splitlines() if path.exists() else []


@contextmanager
def opened_gate() -> Iterator[threading.Event]:
    """A gate for held model replies, opened on the way out whatever happens."""
    gate = threading.Event()
    try:
        yield gate
    finally:
        gate.set()


def child_runs(cli: TemporalCli, workflow_id: str) -> list[tuple[str, str]]:
    """``(child workflow id, status)`` of every child run of any run of ``workflow_id``."""
    listed = cli.list(f"ParentWorkflowId = '{workflow_id}'")
    status = "WORKFLOW_EXECUTION_STATUS_"
    return sorted(
        (run["execution"]["workflowId"], str(run["status"]).removeprefix(status)) for run in listed
    )


def settled_children(cli: TemporalCli, workflow_id: str, count: int) -> list[tuple[str, str]]:
    """The child runs once ``count`` of them exist and all have closed (bounded)."""

    def probe() -> list[tuple[str, str]] | None:
        runs = child_runs(cli, workflow_id)
        closed = len(runs) == count and all(status in CLOSED for _, status in runs)
        return runs if closed else None

    return until(probe, WAIT, f"{count} closed children of {workflow_id}")


def records_of_runs(workflow_ids: set[str]) -> dict[str, list[SessionRecord]]:
    """The catalog's records made by each of ``workflow_ids``."""
    found: dict[str, list[SessionRecord]] = {wid: [] for wid in workflow_ids}
    for record in current_catalog():
        if record.workflow_id in found:
            found[record.workflow_id].append(record)
    return found


def task_after(history: dict[str, Any], found: Callable[[dict[str, Any]], bool]) -> int:
    """The id of the first completed workflow task after the first event ``found`` accepts.

    ``temporal workflow reset --event-id`` takes it: the new run redoes that task.
    """
    events = history["events"]
    first = next(int(e["eventId"]) for e in events if found(e))
    return next(
        int(e["eventId"])
        for e in events
        if int(e["eventId"]) > first and e["eventType"] == "EVENT_TYPE_WORKFLOW_TASK_COMPLETED"
    )


async def assert_replays(
    cli: TemporalCli, settings: Settings, workflow_id: str, run_id: str
) -> None:
    """The run's history, as the CLI downloads it, replays against the current workflow code."""
    history = WorkflowHistory.from_json(workflow_id, json.dumps(cli.history(workflow_id, run_id)))
    replayer = Replayer(workflows=[], plugins=[RathPlugin(settings=settings)])
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is None, (workflow_id, run_id, result.replay_failure)
