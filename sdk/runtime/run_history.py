"""Reading a run from its history: its input, its children, how it closed. See docs/modules.md."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from temporalio.api.common.v1 import Payload
from temporalio.api.enums.v1 import EventType
from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowFailureError,
    WorkflowHistoryEventFilterType,
)
from temporalio.service import RPCError, RPCStatusCode

from rath.contracts.runs import CLOSE_SANDBOX_RUN, COMPRESS_RUN, FORWARD, SESSION_LOOP
from rath.session.graph import GraphNode, SessionGraph
from rath.session.graph.kind import LineageKind
from rath.session.session import Session
from rath.utils.failures import describe_failure

RUN_TYPES = {c.name: c for c in (SESSION_LOOP, FORWARD, COMPRESS_RUN, CLOSE_SANDBOX_RUN)}
"""Rath's workflow types, by name: their input and result types."""

CLOSED_STATUS = {
    WorkflowExecutionStatus.COMPLETED: "completed",
    WorkflowExecutionStatus.FAILED: "failed",
    WorkflowExecutionStatus.CANCELED: "cancelled",
    WorkflowExecutionStatus.TERMINATED: "terminated",
    WorkflowExecutionStatus.TIMED_OUT: "timed_out",
}
"""A closed run's status as the catalog names it (a continued-as-new run has a successor)."""


@dataclass(frozen=True, slots=True)
class StartedRun:
    """A run as it was started: its type, and its input (decoded; None if not Rath's)."""

    workflow_id: str
    workflow_type: str
    input: Any


async def run_input(client: Client, run_id: str) -> StartedRun | None:
    """How the newest run of ``run_id`` was started; None when Temporal has no such run."""
    handle = client.get_workflow_handle(run_id)
    try:
        async for event in handle.fetch_history_events(page_size=1):
            attributes = event.workflow_execution_started_event_attributes
            kind = attributes.workflow_type.name
            return StartedRun(run_id, kind, await _decode(client, kind, attributes.input.payloads))
    except RPCError as exc:
        if exc.status is RPCStatusCode.NOT_FOUND:
            return None
        raise
    return None


async def child_runs(client: Client, run_id: str) -> list[StartedRun]:
    """The child runs the newest run of ``run_id`` started so far, in start order."""
    found = []
    async for event in client.get_workflow_handle(run_id).fetch_history_events():
        if event.event_type != EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
            continue
        attributes = event.start_child_workflow_execution_initiated_event_attributes
        kind = attributes.workflow_type.name
        decoded = await _decode(client, kind, attributes.input.payloads)
        found.append(StartedRun(attributes.workflow_id, kind, decoded))
    return found


def agent_names(runs: Sequence[StartedRun]) -> dict[str, str]:
    """``{workflow id: agent name}`` of the agent runs among ``runs``."""
    return {
        run.workflow_id: run.input.agent_name if run.input is not None else "agent"
        for run in runs
        if run.workflow_type == SESSION_LOOP.name
    }


def agent_nodes(graph: SessionGraph) -> list[GraphNode]:
    """The agent runs (``run_session_loop`` nodes) of a run's session graph."""
    return [node for node in graph.nodes if node.lineage_kind is LineageKind.OP_SESSION_LOOP]


async def closed_output(client: Client, run_id: str) -> Session | None:
    """The session a closed run returned; None when it returned none (it failed, say)."""
    handle = client.get_workflow_handle(run_id, result_type=Session)
    try:
        result = await handle.result()
    except WorkflowFailureError:
        return None
    return result if isinstance(result, Session) else None


async def history_graph(client: Client, run_id: str) -> SessionGraph:
    """The session graph of a run as its history tells it, with no worker."""
    started = await run_input(client, run_id)
    if started is None or started.input is None:
        return SessionGraph()
    run = started.input
    nodes: list[GraphNode] = []
    if started.workflow_type == FORWARD.name:
        nodes.append(GraphNode.from_session(run.session))
        for child in await child_runs(client, run_id):
            if child.workflow_type == SESSION_LOOP.name and child.input is not None:
                nodes.append(_loop_node(child.input, child.workflow_id))
        nodes.append(
            GraphNode(
                id=run.output_id,
                parent_session_ids=(run.session.id,),
                lineage_kind=LineageKind.OP_WORKFLOW,
                lineage_operator=f"{run.module.class_name}.forward",
                agent=run.module.class_name,
                run_id=run_id,
            )
        )
    elif started.workflow_type == SESSION_LOOP.name:
        nodes += [GraphNode.from_session(run.user), GraphNode.from_session(run.agent)]
        nodes.append(_loop_node(run, run_id))
    elif started.workflow_type == COMPRESS_RUN.name:
        nodes.append(GraphNode.from_session(run.output, agent=run.args.agent_name, run_id=run_id))
    description = await client.get_workflow_handle(run_id).describe()
    if description.status == WorkflowExecutionStatus.COMPLETED and nodes:
        output = await closed_output(client, run_id)
        if output is not None:
            last = nodes[-1]
            nodes[-1] = GraphNode.from_session(output, agent=last.agent, run_id=run_id)
    return SessionGraph(nodes=tuple(nodes))


async def close_reason(client: Client, workflow_id: str, run_id: str) -> str | None:
    """One line on why a closed run closed (a terminate's reason, a failure's message)."""
    handle = client.get_workflow_handle(workflow_id, run_id=run_id)
    close = WorkflowHistoryEventFilterType.CLOSE_EVENT
    async for event in handle.fetch_history_events(event_filter_type=close):
        if event.HasField("workflow_execution_terminated_event_attributes"):
            reason = event.workflow_execution_terminated_event_attributes.reason
            return f"terminated: {reason}" if reason else "terminated"
        if event.HasField("workflow_execution_failed_event_attributes"):
            failure = event.workflow_execution_failed_event_attributes.failure
            error = await client.data_converter.decode_failure(failure)
            return describe_failure(error)
        if event.HasField("workflow_execution_timed_out_event_attributes"):
            return "timed out (the run's execution or run timeout passed)"
        if event.HasField("workflow_execution_canceled_event_attributes"):
            return "cancelled"
    return None


def _loop_node(run: Any, run_id: str) -> GraphNode:
    return GraphNode(
        id=run.output_id,
        parent_session_ids=(run.user.id, run.agent.id),
        lineage_kind=LineageKind.OP_SESSION_LOOP,
        lineage_operator="run_session_loop",
        agent=run.agent_name,
        run_id=run_id,
    )


async def _decode(client: Client, workflow_type: str, payloads: Sequence[Payload]) -> Any | None:
    contract = RUN_TYPES.get(workflow_type)
    if contract is None or len(payloads) != 1:
        return None
    (decoded,) = await client.data_converter.decode(payloads, [contract.input])
    return decoded
