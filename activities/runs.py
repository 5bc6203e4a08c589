"""Activities over other runs: stopping the children an earlier run of a workflow left running.

A reset run cannot cancel a workflow it did not start from workflow code without knowing its
id, and only visibility knows which children an older run started: this activity lists them
(``ParentWorkflowId = ...``), cancels those not the current run's, and waits for them to
close (see :mod:`rath.contracts.children`).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from temporalio import activity
from temporalio.client import Client, WorkflowExecution, WorkflowExecutionStatus, WorkflowHandle
from temporalio.service import RPCError

from rath.activities._heartbeat import heartbeating
from rath.contracts.children import STOP_OLD_CHILDREN, StopChildrenArgs, StopChildrenResult

POLL_SECONDS = 0.2


@STOP_OLD_CHILDREN.implement
async def stop_old_children(args: StopChildrenArgs) -> StopChildrenResult:
    """Cancel the running children of ``args.workflow_id``'s other runs; wait, bounded."""
    client = activity.client()
    query = f"ParentWorkflowId = '{_quoted(args.workflow_id)}' AND ExecutionStatus = 'Running'"
    old = [
        execution
        async for execution in client.list_workflows(query)
        if execution.id not in args.keep and execution.parent_run_id != args.run_id
    ]
    async with heartbeating():
        for execution in old:
            await _handle(client, execution).cancel(reason=args.reason)
        left = await _until_closed(client, old, time.monotonic() + args.wait_seconds)
        for execution in left:
            reason = f"{args.reason}; it did not stop within {args.wait_seconds:g}s of its cancel"
            try:
                await _handle(client, execution).terminate(reason=reason)
            except RPCError:  # closed meanwhile
                continue
    terminated = {execution.id for execution in left}
    return StopChildrenResult(
        cancelled=tuple(execution.id for execution in old if execution.id not in terminated),
        terminated=tuple(sorted(terminated)),
    )


async def _until_closed(
    client: Client, executions: list[WorkflowExecution], deadline: float
) -> list[WorkflowExecution]:
    """Poll until every run closed or ``deadline`` passed; the runs still running."""
    running = list(executions)
    while running:
        described = [await _handle(client, execution).describe() for execution in running]
        running = [
            execution
            for execution, now in zip(running, described, strict=True)
            if now.status == WorkflowExecutionStatus.RUNNING
        ]
        if not running or time.monotonic() >= deadline:
            break
        await asyncio.sleep(POLL_SECONDS)  # polling the server's state, bounded by deadline
    return running


def _handle(client: Client, execution: WorkflowExecution) -> WorkflowHandle[Any, Any]:
    return client.get_workflow_handle(execution.id, run_id=execution.run_id)


def _quoted(text: str) -> str:
    """``text`` inside a visibility query's single quotes."""
    return text.replace("\\", "\\\\").replace("'", "\\'")
