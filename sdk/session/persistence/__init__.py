"""OpenRath's session persistence, over Rath's catalog and OpenRath's JSONL files.

Every session an agent run makes is in the session catalog (``rath.store.catalog``, beside
the chunks), so :func:`load_session` finds it from any process, in flight (the rows so far,
``closed=False``) or finished, long after Temporal forgot the run. Files in OpenRath's format
(``run_session_loop(persist=True)``, :class:`SessionWriter`) live in
``<RATH_HOME>/sessions/`` and are read first: OpenRath's files load into Rath, and Rath's load
into OpenRath's reader.

Deleting a session removes its file and record; chunks that nothing else references are left
for ``rath sessions gc`` (which never takes what a record or a run in flight still uses).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

from rath.backend.spec import BackendSandboxSpec
from rath.contracts import SESSION_LOOP, LoopCarry
from rath.errors import PersistenceError, RathError
from rath.runtime.reconcile import reconcile
from rath.runtime.run_query import describe_run, query_run
from rath.runtime.runtime import get_runtime
from rath.session.chunk import ChunkTable
from rath.session.graph.kind import LineageKind
from rath.session.persistence._records import (
    CURRENT_SCHEMA_VERSION,
    PersistedSession,
    PersistedSessionHeader,
    PersistedSessionMeta,
    register_chunk_migration,
    register_header_migration,
    usage_of,
)
from rath.session.persistence.loader import meta_of, read_session_file
from rath.session.persistence.paths import (
    SESSION_FILE_SUFFIX,
    SESSION_PARTIAL_SUFFIX,
    SESSIONS_DIR_NAME,
    ensure_sessions_dir,
    session_file,
    session_partial_file,
    sessions_dir,
)
from rath.session.persistence.writer import SessionWriter
from rath.session.table_ref import TableRef
from rath.store import SessionRecord, current_catalog, current_store

logger = logging.getLogger("rath.session.persistence")
_QUERY_SECONDS = 5.0
_KINDS = {kind.value: kind for kind in LineageKind}


def load_session(session_id: UUID | str, *, path: Path | None = None) -> PersistedSession:
    """The session with that id: from its file, else from the catalog (and its run).

    A record that says its run is going on is first checked against Temporal (a run that was
    terminated or timed out wrote no end of its own); no worker is needed for any of it.

    Raises:
        PersistenceError: No file and no record has it, or its file is malformed.
    """
    if path is not None:
        return read_session_file(Path(path))
    file = _file_of(session_id)
    if file is not None:
        return read_session_file(file)
    record = current_catalog().get(session_id)
    if record is None:
        raise PersistenceError(
            f"session {session_id} not found: no file in {sessions_dir()} and no catalog record in "
            "the store (RATH_STORE_URL or RATH_HOME must point where it ran)"
        )
    return load_recorded(reconciled(record))


def load_recorded(record: SessionRecord) -> PersistedSession:
    """The session of a catalog record as it stands (no check with Temporal).

    From its file if it has one, else from the store (and, while its run goes on, the
    run's transcript so far).
    """
    file = _file_of(record.id)
    return read_session_file(file) if file is not None else _from_record(record)


def reconciled(record: SessionRecord) -> SessionRecord:
    """``record`` checked against Temporal (when it says running); a warning if it cannot be."""
    result = reconcile(current_store(), [record])
    if result.note is not None:
        logger.warning("%s", result.note)
    return result.apply([record])[0]


def list_persisted_sessions() -> list[PersistedSessionMeta]:
    """Every session with a file or a catalog record, oldest first (unreadable ones skipped)."""
    found: dict[UUID, PersistedSessionMeta] = {}
    for path in _files():
        try:
            meta = meta_of(path)
        except PersistenceError as exc:
            logger.warning("skipping %s: %s", path, exc)
            continue
        found.setdefault(meta.id, meta)
    for record in current_catalog().records():
        if record.id not in found:
            found[record.id] = _meta_of_record(record)
    return sorted(found.values(), key=lambda meta: (meta.created_at, str(meta.id)))


def delete_session(session_id: UUID | str, *, path: Path | None = None) -> bool:
    """Remove a session's files and catalog record; False if there was nothing to remove."""
    removed = False
    files = [Path(path)] if path is not None else [session_file(session_id)]
    files.append(files[0].with_name(files[0].name + ".__partial__"))
    for file in files:
        if file.exists():
            file.unlink()
            removed = True
    catalog = current_catalog()
    if catalog.get(session_id) is not None:
        catalog.delete(session_id)
        removed = True
    return removed


def prune_sessions(*, older_than: timedelta) -> list[UUID]:
    """Delete the sessions created more than ``older_than`` ago; their ids.

    Unreadable files are kept; sessions still running are never pruned.
    """
    cutoff = datetime.now(UTC) - older_than
    pruned = []
    result = reconcile(current_store())  # a run that ended unannounced is not running
    if result.note is not None:
        logger.warning("%s", result.note)
    for meta in list_persisted_sessions():
        old = _aware(meta.created_at) < cutoff and (meta.closed or meta.path is not None)
        if old and delete_session(meta.id, path=meta.path):
            pruned.append(meta.id)
    return pruned


def _file_of(session_id: UUID | str) -> Path | None:
    for candidate in (session_file(session_id), session_partial_file(session_id)):
        if candidate.exists():
            return candidate
    return None


def _files() -> list[Path]:
    directory = sessions_dir()
    if not directory.is_dir():
        return []
    return sorted(
        p
        for p in directory.iterdir()
        if p.name.endswith(SESSION_FILE_SUFFIX) or p.name.endswith(SESSION_PARTIAL_SUFFIX)
    )


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
        lineage_kind=_KINDS.get(record.kind, LineageKind.UNKNOWN),
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
    """The transcript: sealed when the run ended, else an agent run's rows so far.

    The rows so far need a worker to answer; a durable forward has none until it returns.
    """
    if record.root is not None:
        return TableRef.sealed(record.root)
    if record.status != "running" or record.workflow_id is None:
        return None
    runtime = get_runtime()
    run_id = record.workflow_id

    async def ask() -> Any:
        client = await runtime.reader()
        if (await describe_run(client, run_id)).workflow_type != SESSION_LOOP.name:
            return None
        return await query_run(client, run_id, "progress", LoopCarry | None, timeout=_QUERY_SECONDS)

    try:
        carry = runtime.submit(ask()).result(timeout=_QUERY_SECONDS + 10)
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
        lineage_kind=_KINDS.get(record.kind, LineageKind.UNKNOWN),
        chunk_count=count,
        closed=record.status != "running",
    )


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


__all__ = [
    "CURRENT_SCHEMA_VERSION",
    "SESSIONS_DIR_NAME",
    "SESSION_FILE_SUFFIX",
    "SESSION_PARTIAL_SUFFIX",
    "PersistedSession",
    "PersistedSessionHeader",
    "PersistedSessionMeta",
    "PersistenceError",
    "SessionWriter",
    "delete_session",
    "ensure_sessions_dir",
    "list_persisted_sessions",
    "load_session",
    "prune_sessions",
    "register_chunk_migration",
    "register_header_migration",
    "session_file",
    "session_partial_file",
    "sessions_dir",
]
