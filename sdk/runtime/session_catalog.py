"""The session catalog's half of ``rath.session.persistence``: records, runs, the store.

``ClientHost.catalog()`` returns :class:`SessionCatalog`; see docs/design.md.
"""

from __future__ import annotations

import logging
from typing import Any
from uuid import UUID

from temporalio.client import Client

from rath.backend.spec import BackendSandboxSpec
from rath.contracts.runs import SESSION_LOOP, LoopCarry
from rath.errors import RathError
from rath.runtime.reconcile import reconcile_noting
from rath.runtime.run_query import describe_run, query_run
from rath.runtime.runtime import get_runtime
from rath.session.chunk import ChunkTable
from rath.session.graph.kind import LineageKind
from rath.session.persistence import (
    CURRENT_SCHEMA_VERSION,
    PersistedSession,
    PersistedSessionHeader,
    PersistedSessionMeta,
    file_of,
    read_session_file,
    usage_of,
)
from rath.session.table_ref import TableRef
from rath.store import SessionRecord, current_catalog, current_store

logger = logging.getLogger("rath.session.persistence")
_QUERY_SECONDS = 5.0
_KINDS = {kind.value: kind for kind in LineageKind}


class SessionCatalog:
    """The catalog's records of every agent run's session (``PersistedCatalog``)."""

    def load(self, session_id: UUID | str) -> PersistedSession | None:
        """The recorded session, checked against Temporal when it says running."""
        record = current_catalog().get(session_id)
        return None if record is None else load_recorded(reconciled(record))

    def metas(self) -> list[PersistedSessionMeta]:
        """Every record's meta."""
        return [_meta_of_record(record) for record in current_catalog().records()]

    def delete(self, session_id: UUID | str) -> bool:
        """Remove the record; whether there was one."""
        catalog = current_catalog()
        if catalog.get(session_id) is None:
            return False
        catalog.delete(session_id)
        return True

    def reconcile(self) -> None:
        """Mark the records of runs that ended unannounced (a warning if that cannot be)."""
        reconcile_noting(current_store(), note=logger.warning)


def load_recorded(record: SessionRecord) -> PersistedSession:
    """The session of a catalog record as it stands (no check with Temporal)."""
    file = file_of(record.id)
    return read_session_file(file) if file is not None else _from_record(record)


def reconciled(record: SessionRecord) -> SessionRecord:
    """``record`` checked against Temporal (when it says running); a warning if it cannot be."""
    return reconcile_noting(current_store(), [record], note=logger.warning).apply([record])[0]


def lineage_kind_of(record: SessionRecord) -> LineageKind:
    """The lineage kind ``record`` names (``UNKNOWN`` for a kind this version does not know)."""
    return _KINDS.get(record.kind, LineageKind.UNKNOWN)


def _from_record(record: SessionRecord) -> PersistedSession:
    table = _table_of(record)
    rows = current_store().load_rows(table) if table is not None else ()
    placement = record.placement or {}
    spec = placement.get("spec")
    backend = spec.get("backend") if spec else None
    header = PersistedSessionHeader(
        schema_version=CURRENT_SCHEMA_VERSION,
        id=record.id,
        created_at=record.created,
        parent_session_ids=record.parents,
        lineage_operator=record.operator,
        lineage_kind=lineage_kind_of(record),
        sandbox_backend=backend,
        sandbox_spec=BackendSandboxSpec(**spec) if spec else None,
        sandbox_handle_id=placement.get("sandbox_id"),
    )
    usage = usage_of(record.usage, f"catalog record {record.id}") if record.usage else None
    return PersistedSession(
        header=header,
        chunk_table=ChunkTable(rows=tuple(rows)),
        cumulative_usage=usage,
        closed=record.status != "running",
        path=None,
    )


def _table_of(record: SessionRecord) -> TableRef | None:
    """The transcript: sealed when the run ended, else an agent run's rows so far."""
    if record.root is not None:
        return TableRef.sealed(record.root)
    if record.status != "running" or record.workflow_id is None:
        return None
    run_id = record.workflow_id

    async def ask(client: Client) -> Any:
        if (await describe_run(client, run_id)).workflow_type != SESSION_LOOP.name:
            return None
        return await query_run(client, run_id, "progress", LoopCarry | None, timeout=_QUERY_SECONDS)

    try:
        carry = get_runtime().call(ask, timeout=_QUERY_SECONDS + 10, reader=True)
    except (RathError, TimeoutError) as exc:
        logger.warning("session %s: rows so far not shown: %s", record.id, exc)
        return None  # no worker answers now: the record alone (no rows yet)
    return carry.transcript if carry is not None else None


def _meta_of_record(record: SessionRecord) -> PersistedSessionMeta:
    table = TableRef.sealed(record.root) if record.root is not None else None
    count = len(current_store().load_rows(table)) if table is not None else 0
    return PersistedSessionMeta(
        id=record.id,
        path=None,
        created_at=record.created,
        lineage_operator=record.operator,
        lineage_kind=lineage_kind_of(record),
        chunk_count=count,
        closed=record.status != "running",
    )
