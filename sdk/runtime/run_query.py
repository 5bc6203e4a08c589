"""Querying a run from any process, answered even when no worker can. See docs/modules.md."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client, WorkflowExecutionDescription
from temporalio.service import RPCError, RPCStatusCode

from rath.contracts.queues import code_of
from rath.contracts.runs import FORWARD
from rath.errors import ConfigError, RunNotFoundError, WorkerUnavailableError
from rath.runtime.run_history import agent_names, agent_nodes, child_runs, run_input
from rath.session.graph import SessionGraph
from rath.session.session import Session

_NO_ANSWER = (RPCStatusCode.CANCELLED, RPCStatusCode.DEADLINE_EXCEEDED)
_NO_POLLER = "no poller seen"
"""Temporal's answer (FAILED_PRECONDITION) once a queue has had no poller for 20 s."""
PROBE_QUERY = "__temporal_workflow_metadata"
"""A query every Temporal worker answers for every workflow it runs."""
NO_POLLER_GRACE = 2.0
"""Seconds a query waits on a queue that no worker polls: one just started may not show yet."""


def run_id_of(run: Session | str, lacking: str) -> str:
    """The workflow id of ``run`` (an id, or a session a run produced).

    Raises:
        ConfigError: ``run`` is a session that no run produced; the message ends with
            ``lacking`` (what such a session has not).
    """
    run_id = run if isinstance(run, str) else run.run_id
    if run_id is None:
        raise ConfigError(f"this session was not produced by a run, so {lacking}")
    return run_id


async def describe_run(client: Client, run_id: str) -> WorkflowExecutionDescription:
    """The newest run of workflow id ``run_id``.

    Raises:
        RunNotFoundError: No run has that workflow id.
    """
    description = await find_run(client, run_id)
    if description is None:
        raise run_not_found(client, run_id)
    return description


async def find_run(client: Client, run_id: str) -> WorkflowExecutionDescription | None:
    """The newest run of workflow id ``run_id``; None when no run has that id (yet)."""
    try:
        return await client.get_workflow_handle(run_id).describe()
    except RPCError as exc:
        if exc.status is RPCStatusCode.NOT_FOUND:
            return None
        raise


async def query_run(
    client: Client, run_id: str, name: str, result_type: Any, *, timeout: float
) -> Any:
    """The answer of ``run_id``'s query ``name``.

    Raises:
        RunNotFoundError: No run has that workflow id.
        WorkerUnavailableError: No worker polls the run's task queue, or none answered
            within ``timeout`` seconds; the message says which worker must be running.
    """
    queue = (await describe_run(client, run_id)).task_queue
    if not await is_polled(client, queue):
        timeout = min(timeout, NO_POLLER_GRACE)
    handle = client.get_workflow_handle(run_id)
    try:
        return await handle.query(
            name, result_type=result_type, rpc_timeout=timedelta(seconds=timeout)
        )
    except RPCError as exc:
        if exc.status is RPCStatusCode.NOT_FOUND:
            raise run_not_found(client, run_id) from None
        no_poller = exc.status is RPCStatusCode.FAILED_PRECONDITION and _NO_POLLER in exc.message
        if exc.status not in _NO_ANSWER and not no_poller:
            raise
    target = await _forward_target(client, run_id)
    raise WorkerUnavailableError(no_worker_message(run_id, queue, timeout, target))


async def forward_agents(
    client: Client, run_id: str, *, running: bool, timeout: float
) -> dict[str, str]:
    """``{workflow id: agent name}`` of the agent runs a durable forward has started so far.

    While it runs, those its graph holds; once it ended, the child runs its history holds.

    Raises:
        RunNotFoundError: No run has that workflow id.
        WorkerUnavailableError: It runs, and no worker answered its graph query.
    """
    if not running:
        return agent_names(await child_runs(client, run_id))
    graph = await query_run(client, run_id, "graph", SessionGraph, timeout=timeout)
    return {node.run_id: node.agent or "agent" for node in agent_nodes(graph) if node.run_id}


async def check_worker(client: Client, run_id: str, *, timeout: float) -> None:
    """Return once a worker with ``run_id``'s code answers for it.

    Raises:
        RunNotFoundError: No run has that workflow id.
        WorkerUnavailableError: None answered (the message says which to start).
    """
    await query_run(client, run_id, PROBE_QUERY, Any, timeout=timeout)


async def is_polled(client: Client, queue: str) -> bool:
    """Whether any worker polled ``queue`` for workflow tasks lately."""
    request = DescribeTaskQueueRequest(
        namespace=client.namespace,
        task_queue=TaskQueue(name=queue),
        task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    )
    described = await client.workflow_service.describe_task_queue(request)
    return bool(described.pollers)


def run_not_found(client: Client, run_id: str) -> RunNotFoundError:
    """The error for a workflow id the namespace does not have."""
    return RunNotFoundError(
        f"no run has workflow id {run_id!r} in namespace {client.namespace!r} "
        "(`temporal workflow list` shows the runs there)"
    )


def worker_needed(queue: str, target: str | None = None) -> str:
    """What to start so that a worker polls ``queue`` (``target``: the class, if known)."""
    code = code_of(queue)
    if code is None:
        return "start one with `rath worker` (or run any Rath script on the embedded default)"
    kind, name = code
    flag = "--workflows" if kind == "workflow" else "--tools"
    what = target if target is not None and kind == "workflow" else f"package.module:{name}"
    return (
        f"only workers with the {kind} {name!r} poll it: start one with "
        f"`rath worker {flag} {what}`, or run the script that defines it"
    )


class Stall:
    """Polls of a run telling when it is stuck: no worker answered, twice, and nothing happened."""

    def __init__(self) -> None:
        self._length: int | None = None  # the history's length when no worker answered last

    def stuck(self, unanswered: bool, history_length: int) -> bool:
        """Note one poll; True when no worker answered it nor the last, and no event came since."""
        stuck = unanswered and self._length == history_length
        self._length = history_length if unanswered else None
        return stuck


def no_worker_message(run_id: str, queue: str, timeout: float, target: str | None = None) -> str:
    """Which worker must be running for ``run_id`` (on ``queue``) to answer."""
    where = f"run {run_id!r} (task queue {queue!r})"
    needs = worker_needed(queue, target)
    return f"no worker answered for {where} within {timeout:g} s: {needs}"


async def _forward_target(client: Client, run_id: str) -> str | None:
    """The ``module:Class`` of a durable forward's run, from its first event (else None)."""
    started = await run_input(client, run_id)
    if started is None or started.workflow_type != FORWARD.name:
        return None
    target: str = started.input.module.target
    return target
