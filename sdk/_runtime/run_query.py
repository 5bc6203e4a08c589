"""Querying a run from any process, with an answer when no worker can give one."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from rath.contracts.queues import code_of
from rath.errors import RunNotFoundError, WorkerUnavailableError

_NO_ANSWER = (RPCStatusCode.CANCELLED, RPCStatusCode.DEADLINE_EXCEEDED)


async def query_run(
    client: Client, run_id: str, name: str, result_type: Any, *, timeout: float
) -> Any:
    """The answer of ``run_id``'s query ``name``.

    Raises:
        RunNotFoundError: No run has that workflow id.
        WorkerUnavailableError: No worker answered within ``timeout`` seconds; the message
            says which worker must be running.
    """
    handle = client.get_workflow_handle(run_id)
    try:
        return await handle.query(
            name, result_type=result_type, rpc_timeout=timedelta(seconds=timeout)
        )
    except RPCError as exc:
        if exc.status is RPCStatusCode.NOT_FOUND:
            raise run_not_found(client, run_id) from None
        if exc.status not in _NO_ANSWER:
            raise
    queue = (await handle.describe()).task_queue
    raise WorkerUnavailableError(no_worker_message(run_id, queue, timeout))


def run_not_found(client: Client, run_id: str) -> RunNotFoundError:
    """The error for a workflow id the namespace does not have."""
    return RunNotFoundError(
        f"no run has workflow id {run_id!r} in namespace {client.namespace!r} "
        "(`temporal workflow list` shows the runs there)"
    )


def no_worker_message(run_id: str, queue: str, timeout: float) -> str:
    """Which worker must be running for ``run_id`` (on ``queue``) to answer."""
    code = code_of(queue)
    if code is None:
        needs = "start one with `rath worker` (or run any Rath script on the embedded default)"
    else:
        kind, name = code
        flag = "--workflows package.module:" if kind == "workflow" else "--tools package.module:"
        needs = (
            f"only workers with the {kind} {name!r} poll it: start one with "
            f"`rath worker {flag}{name}`, or run the script that defines it"
        )
    where = f"run {run_id!r} (task queue {queue!r})"
    return f"no worker answered for {where} within {timeout:g} s: {needs}"
