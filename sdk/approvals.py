"""Answering tool calls that wait for a person (``tool_policy`` ``ask``). See docs/modules.md."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any, TypeVar

from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowUpdateFailedError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
)

from rath.contracts.approvals import (
    APPROVE_UPDATE,
    PENDING_APPROVALS_QUERY,
    ApprovalDecision,
    PendingApproval,
)
from rath.contracts.runs import FORWARD, SESSION_LOOP
from rath.errors import ConfigError, RunNotFoundError, WorkerUnavailableError
from rath.runtime.run_query import (
    describe_run,
    find_run,
    forward_agents,
    no_worker_message,
    query_run,
    run_id_of,
)
from rath.runtime.runtime import get_runtime
from rath.session.graph.kind import LineageKind
from rath.session.session import Session

__all__ = ["PendingApproval", "approve", "deny", "pending_approvals"]

T = TypeVar("T")
QUERY_SECONDS = 10.0
"""How long a query (or an answer) waits for a worker to take it."""


def pending_approvals(run: Session | str, *, timeout: float = 30.0) -> list[PendingApproval]:
    """Tool calls of ``run`` (an agent run or a whole durable tree) waiting for an answer."""

    async def ask(client: Client) -> list[PendingApproval]:
        found = await _pending(client, await _agent_runs(client, run))
        return [item for items in found.values() for item in items]

    return get_runtime().call(ask, timeout=timeout)


def approve(run: Session | str, call_id: str, *, timeout: float = 30.0) -> str:
    """Let the waiting tool call ``call_id`` run.

    Raises:
        ConfigError: No run of ``run`` has that call waiting (the message lists those that do).
    """
    return _answer(run, ApprovalDecision(call_id=call_id, approve=True), timeout)


def deny(
    run: Session | str, call_id: str, reason: str | None = None, *, timeout: float = 30.0
) -> str:
    """Refuse the waiting tool call ``call_id``; the model is told, with ``reason``."""
    return _answer(run, ApprovalDecision(call_id=call_id, approve=False, reason=reason), timeout)


def _answer(run: Session | str, decision: ApprovalDecision, timeout: float) -> str:

    async def send(client: Client) -> str:
        waiting = await _pending(client, await _agent_runs(client, run))
        owner = next(
            (
                rid
                for rid, items in waiting.items()
                if any(i.call_id == decision.call_id for i in items)
            ),
            None,
        )
        if owner is None:
            listed = ", ".join(
                f"{i.call_id} ({i.tool})" for items in waiting.values() for i in items
            )
            raise ConfigError(
                f"no tool call {decision.call_id!r} is waiting for approval "
                f"(waiting: {listed or 'none'})"
            )
        try:
            await client.get_workflow_handle(owner).execute_update(
                APPROVE_UPDATE, decision, rpc_timeout=timedelta(seconds=QUERY_SECONDS)
            )
        except WorkflowUpdateFailedError as exc:
            raise ConfigError(f"run {owner!r} refused the answer: {exc.cause or exc}") from exc
        except WorkflowUpdateRPCTimeoutOrCancelledError:
            queue = (await describe_run(client, owner)).task_queue
            raise WorkerUnavailableError(
                no_worker_message(owner, queue, QUERY_SECONDS) + "; the answer was not taken"
            ) from None
        return owner

    return get_runtime().call(send, timeout=timeout)


async def _agent_runs(client: Client, run: Session | str) -> list[str]:
    """The agent runs to ask: the run itself, or every agent run of a durable tree."""
    if isinstance(run, Session):
        run_id = run_id_of(run, "no call can be waiting")
        tree = run.lineage_kind is LineageKind.OP_WORKFLOW
    else:
        run_id = run
        description = await describe_run(client, run_id)
        if description.workflow_type not in (FORWARD.name, SESSION_LOOP.name):
            return []  # compression, closing a sandbox: no tool calls to approve
        tree = description.workflow_type == FORWARD.name
    if not tree:
        return [run_id]
    found = await find_run(client, run_id)
    if found is None:
        return []  # not started yet (runs start lazily): nothing can be waiting
    running = found.status == WorkflowExecutionStatus.RUNNING
    try:
        return sorted(await forward_agents(client, run_id, running=running, timeout=QUERY_SECONDS))
    except RunNotFoundError:
        return []  # gone meanwhile: nothing can be waiting


async def _asks(client: Client, run_id: str) -> bool:
    """Whether ``run_id`` is an agent run still going (only those can have calls waiting)."""
    description = await find_run(client, run_id)
    if description is None:
        return False  # not started yet
    running = description.status == WorkflowExecutionStatus.RUNNING
    return running and description.workflow_type == SESSION_LOOP.name


async def _pending(client: Client, run_ids: list[str]) -> dict[str, list[PendingApproval]]:
    async def one(run_id: str) -> list[PendingApproval]:
        if not await _asks(client, run_id):
            return []  # closed (it answers no query then), not started, or not an agent
        return await _query(client, run_id, PENDING_APPROVALS_QUERY, list[PendingApproval], [])

    answers = await asyncio.gather(*(one(run_id) for run_id in run_ids))
    return dict(zip(run_ids, answers, strict=True))


async def _query(client: Client, run_id: str, name: str, result_type: Any, missing: T) -> T:
    """A query's answer; ``missing`` for a run that does not exist (yet: runs start lazily).

    Raises:
        WorkerUnavailableError: No worker that has the run's code answered.
    """
    try:
        answer: T = await query_run(client, run_id, name, result_type, timeout=QUERY_SECONDS)
    except RunNotFoundError:
        return missing
    return answer
