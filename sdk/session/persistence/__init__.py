"""OpenRath's session persistence: Rath's catalog and OpenRath's JSONL. See docs/modules.md."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from uuid import UUID

from rath.errors import PersistenceError
from rath.session.host import current_host
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
    partial_of,
    session_file,
    session_partial_file,
    sessions_dir,
)
from rath.session.persistence.writer import SessionWriter
from rath.utils.records import aware_utc

logger = logging.getLogger("rath.session.persistence")


def load_session(session_id: UUID | str, *, path: Path | None = None) -> PersistedSession:
    """The session with that id: from its file, else from the catalog (and its run).

    Raises:
        PersistenceError: No file and no record has it, or its file is malformed.
    """
    if path is not None:
        return read_session_file(Path(path))
    file = file_of(session_id)
    if file is not None:
        return read_session_file(file)
    recorded: PersistedSession | None = current_host().catalog().load(session_id)
    if recorded is None:
        raise PersistenceError(
            f"session {session_id} not found: no file in {sessions_dir()} and no catalog record in "
            "the store (RATH_STORE_URL or RATH_HOME must point where it ran)"
        )
    return recorded


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
    for meta in current_host().catalog().metas():
        found.setdefault(meta.id, meta)
    return sorted(found.values(), key=lambda meta: (meta.created_at, str(meta.id)))


def delete_session(session_id: UUID | str, *, path: Path | None = None) -> bool:
    """Remove a session's files and catalog record; False if there was nothing to remove."""
    removed = False
    files = [Path(path)] if path is not None else [session_file(session_id)]
    files.append(partial_of(files[0]))
    for file in files:
        if file.exists():
            file.unlink()
            removed = True
    return current_host().catalog().delete(session_id) or removed


def prune_sessions(*, older_than: timedelta) -> list[UUID]:
    """Delete the sessions created more than ``older_than`` ago; their ids."""
    cutoff = datetime.now(UTC) - older_than
    pruned = []
    current_host().catalog().reconcile()  # a run that ended unannounced is not running
    for meta in list_persisted_sessions():
        old = aware_utc(meta.created_at) < cutoff and (meta.closed or meta.path is not None)
        if old and delete_session(meta.id, path=meta.path):
            pruned.append(meta.id)
    return pruned


def file_of(session_id: UUID | str) -> Path | None:
    """The session's file (complete, else partial), if it has one."""
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
    "file_of",
    "list_persisted_sessions",
    "load_session",
    "prune_sessions",
    "read_session_file",
    "register_chunk_migration",
    "register_header_migration",
    "session_file",
    "session_partial_file",
    "sessions_dir",
    "usage_of",
]
