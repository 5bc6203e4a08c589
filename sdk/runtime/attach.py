"""``rath.session.attach`` on the client: an existing run's lazy session. See docs/modules.md."""

from __future__ import annotations

from uuid import UUID

from temporalio.client import Client

from rath.contracts.runs import COMPRESS_RUN, FORWARD, SESSION_LOOP
from rath.errors import RunNotFoundError
from rath.llm.chat_response import usage_from_json
from rath.runtime.launch import attach_run
from rath.runtime.run_history import StartedRun, run_input
from rath.runtime.runtime import get_runtime
from rath.runtime.session_catalog import lineage_kind_of
from rath.session.graph.kind import LineageKind
from rath.session.placement import Placement
from rath.session.session import Session
from rath.session.table_ref import TableRef
from rath.store import SessionRecord, current_catalog


def attach(session_or_run: UUID | str) -> Session:
    """The session a run produces (or produced), by session id or by workflow id (client side).

    Raises:
        RunNotFoundError: Neither the catalog nor Temporal knows it, or the run is of a
            kind that makes no session (``rath.CloseSandbox``).
    """
    record = _record(session_or_run)
    run_id = record.workflow_id if record is not None else str(session_or_run)

    async def look(client: Client) -> StartedRun | None:
        return await run_input(client, run_id or "")

    found = get_runtime().call(look, timeout=60) if run_id else None
    if found is None:
        if record is not None and record.status != "running":
            return _from_record(record)
        raise RunNotFoundError(f"no session or run {str(session_or_run)!r}: nothing to attach to")
    out = _session_of(record, found)
    attach_run(out, run_id or "", workflow=found.workflow_type)
    return out


def _record(key: UUID | str) -> SessionRecord | None:
    try:
        session_id = UUID(str(key))
    except ValueError:
        return None  # a workflow id
    return current_catalog().get(session_id)


def _session_of(record: SessionRecord | None, started: StartedRun) -> Session:
    workflow_type, run_input = started.workflow_type, started.input
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
    if workflow_type == COMPRESS_RUN.name:
        shell: Session = run_input.output
        return shell
    if record is not None:
        return _from_record(record, table=False)
    raise RunNotFoundError(f"a {workflow_type} run produces no session to attach to")


def _from_record(record: SessionRecord, *, table: bool = True) -> Session:
    session = Session(
        id=record.id,
        parent_session_ids=record.parents,
        lineage_kind=lineage_kind_of(record),
        lineage_operator=record.operator,
        sandbox=Placement.model_validate(record.placement) if record.placement else None,
        usage=usage_from_json(record.usage) if record.usage else None,
    )
    if table and record.root is not None:
        session.table = TableRef.sealed(record.root)
    return session
