"""``rath.session.attach``: the lazy session of an existing run, from any process.

A script stopped with Ctrl-C leaves its runs going (on any worker with their code). Run again,
it can pick a run back up instead of starting over: ``attach(session_id)`` (from the catalog,
or ``rath sessions``) or ``attach(workflow_id)`` returns a session that reads like the one the
script had: lazy while the run goes on, ready once it ends, and a failed run raises its error.
Streamed events can be followed again from any offset with ``rath.streaming.follow_events``.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from rath._runtime.launch import attach_run
from rath._runtime.runtime import get_runtime
from rath.contracts import FORWARD, SESSION_LOOP, ForwardInput, SessionLoopInput
from rath.errors import RunNotFoundError
from rath.llm._usage import TokenUsage
from rath.session._lineage import LineageKind
from rath.session._placement import Placement
from rath.session._session import Session
from rath.session._table_ref import TableRef
from rath.store import SessionRecord, current_catalog

_KINDS = {kind.value: kind for kind in LineageKind}


def attach(session_or_run: UUID | str) -> Session:
    """The session a run produces (or produced), by session id or by workflow id.

    Args:
        session_or_run: A session id from the catalog (``rath sessions ls``), or a run's
            workflow id (``rath-Squad-...``, printed when it started).

    Returns:
        A lazy session while the run goes on, a ready one once it ended. A finished session
        whose run Temporal no longer keeps is rebuilt from its catalog record.

    Raises:
        RunNotFoundError: Neither the catalog nor Temporal knows it.
    """
    record = _record(session_or_run)
    run_id = record.workflow_id if record is not None else str(session_or_run)
    runtime = get_runtime()

    async def look() -> tuple[str, Any] | None:
        return await _run_input(await runtime.client(), run_id or "")

    found = runtime.submit(look()).result(timeout=60) if run_id else None
    if found is None:
        if record is not None and record.status != "running":
            return _from_record(record)
        raise RunNotFoundError(f"no session or run {str(session_or_run)!r}: nothing to attach to")
    workflow_type, run_input = found
    out = _session_of(record, workflow_type, run_input)
    attach_run(out, run_id or "", workflow=workflow_type)
    return out


def _record(key: UUID | str) -> SessionRecord | None:
    try:
        session_id = UUID(str(key))
    except ValueError:
        return None  # a workflow id
    return current_catalog().get(session_id)


async def _run_input(client: Client, run_id: str) -> tuple[str, Any] | None:
    """The run's workflow type and decoded input (from its first history event)."""
    handle = client.get_workflow_handle(run_id)
    try:
        description = await handle.describe()
        async for event in handle.fetch_history_events(page_size=1):
            payloads = event.workflow_execution_started_event_attributes.input.payloads
            break
        else:
            return None
    except RPCError as exc:
        if exc.status is RPCStatusCode.NOT_FOUND:
            return None
        raise
    hint = ForwardInput if description.workflow_type == FORWARD.name else SessionLoopInput
    (decoded,) = await client.data_converter.decode(payloads, [hint])
    return description.workflow_type, decoded


def _session_of(record: SessionRecord | None, workflow_type: str, run_input: Any) -> Session:
    if workflow_type == SESSION_LOOP.name:
        return Session(
            id=run_input.output_id,
            parent_session_ids=(run_input.user.id, run_input.agent.id),
            lineage_kind=LineageKind.OP_SESSION_LOOP,
            lineage_operator="run_session_loop",
            sandbox=run_input.user.sandbox,
        )
    if workflow_type == FORWARD.name:
        return Session(
            id=run_input.output_id,
            parent_session_ids=(run_input.session.id,),
            lineage_kind=LineageKind.OP_WORKFLOW,
            lineage_operator=f"{run_input.module.class_name}.forward",
            sandbox=run_input.session.sandbox,
        )
    if record is not None:
        return _from_record(record, table=False)
    raise RunNotFoundError(f"a {workflow_type} run produces no session to attach to")


def _from_record(record: SessionRecord, *, table: bool = True) -> Session:
    session = Session(
        id=record.id,
        parent_session_ids=record.parents,
        lineage_kind=_KINDS.get(record.kind, LineageKind.UNKNOWN),
        lineage_operator=record.operator,
        sandbox=Placement.model_validate(record.placement) if record.placement else None,
        usage=TokenUsage.model_validate(record.usage) if record.usage else None,
    )
    if table and record.root is not None:
        session.table = TableRef.sealed(record.root)
    return session
