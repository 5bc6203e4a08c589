"""Sandbox identities that outlive a process (OpenRath's ``rath.backend.persistence``).

See docs/sandboxes.md, "Where the code is".
"""

from __future__ import annotations

import json
import logging
import os
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

from rath.backend.abc import BackendSandbox
from rath.backend.persistence.paths import (
    OPENSANDBOX_INDEX_SUFFIX,
    ensure_local_root,
    ensure_opensandbox_root,
    local_root,
    opensandbox_index_path,
    opensandbox_root,
)
from rath.backend.persistence.paths import (
    local_sandbox_dir as local_sandbox_dir,
)
from rath.backend.persistence.paths import (
    sandboxes_dir as sandboxes_dir,
)
from rath.backend.persistence.spec_json import spec_from_jsonable, spec_to_jsonable
from rath.backend.registry import get
from rath.backend.spec import BackendSandboxSpec
from rath.utils.local_dirs import LocalDirRegistry
from rath.utils.records import aware_utc

SCHEMA_VERSION = 1

logger = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True, slots=True)
class RemoteSandboxRecord:
    """A remote sandbox's record: which backend, its remote id, its spec and times."""

    schema_version: int
    id: UUID
    backend: str
    remote_id: str
    spec: BackendSandboxSpec | None
    created_at: datetime
    last_used_at: datetime
    path: Path = field(repr=False)


class PersistentSandboxRegistry(LocalDirRegistry):
    """Allocates, lists, prunes and reattaches sandbox identities (state on disk, no locking).

    Every remote record lives in ``sandboxes/opensandbox/<uuid>.json``, whatever its backend
    (the record names it), as in OpenRath.
    """

    kind = "local sandbox"

    def _root(self) -> Path:
        return local_root()

    def ensure_dirs(self) -> None:
        """Create both roots: ``sandboxes/local`` and ``sandboxes/opensandbox``."""
        ensure_local_root()
        ensure_opensandbox_root()

    def prune_local(self, *, older_than: timedelta) -> list[UUID]:
        """Delete local sandboxes whose directory was last modified before ``older_than`` ago."""
        return [i for i in self._stale(older_than.total_seconds()) if self.delete_local(i)]

    def record_remote(
        self,
        backend: str,
        remote_id: str,
        spec: BackendSandboxSpec | None = None,
        *,
        sandbox_id: UUID | None = None,
    ) -> UUID:
        """Record a remote sandbox in ``sandboxes/opensandbox/<uuid>.json`` (mode 600)."""
        sandbox_id = sandbox_id or uuid.uuid4()
        now = datetime.now(UTC).isoformat()
        record = {
            "schema_version": SCHEMA_VERSION,
            "id": str(sandbox_id),
            "backend": backend,
            "remote_id": remote_id,
            "spec": spec_to_jsonable(spec),
            "created_at": now,
            "last_used_at": now,
        }
        ensure_opensandbox_root()
        _write_private(opensandbox_index_path(sandbox_id), record)
        return sandbox_id

    def load_remote(self, sandbox_id: UUID | str) -> RemoteSandboxRecord | None:
        """The record of ``sandbox_id``; ``None`` when there is none (or it is unreadable)."""
        path = opensandbox_index_path(sandbox_id)
        return _read_record(path) if path.is_file() else None

    def list_remote(self) -> list[RemoteSandboxRecord]:
        """Every readable remote record, oldest first (unreadable ones are skipped)."""
        root = opensandbox_root()
        if not root.is_dir():
            return []
        paths = sorted(p for p in root.glob(f"*{OPENSANDBOX_INDEX_SUFFIX}") if p.is_file())
        records = [r for r in map(_read_record, paths) if r is not None]
        return sorted(records, key=lambda r: r.created_at)

    def touch_remote(self, sandbox_id: UUID | str) -> None:
        """Set a record's ``last_used_at`` to now (no-op when missing or unreadable)."""
        path = opensandbox_index_path(sandbox_id)
        data = _read_json(path) if path.is_file() else None
        if data is not None:
            data["last_used_at"] = datetime.now(UTC).isoformat()
            _write_private(path, data)

    def delete_remote(self, sandbox_id: UUID | str) -> bool:
        """Delete a record (the remote sandbox itself is left alone); whether there was one."""
        path = opensandbox_index_path(sandbox_id)
        if not path.exists():
            return False
        path.unlink()
        return True

    def prune_remote(self, *, older_than: timedelta) -> list[UUID]:
        """Delete records last used before ``older_than`` ago."""
        cutoff = datetime.now(UTC) - older_than
        pruned = [r.id for r in self.list_remote() if aware_utc(r.last_used_at) < cutoff]
        return [i for i in pruned if self.delete_remote(i)]

    def reattach_remote(self, sandbox_id: UUID | str) -> BackendSandbox:
        """Reconnect to a recorded remote sandbox through its backend's ``attach``.

        Raises:
            KeyError: No record has that id.
            AttributeError: The backend cannot attach to running sandboxes.
        """
        record = self.load_remote(sandbox_id)
        if record is None:
            known = [str(r.id) for r in self.list_remote()]
            raise KeyError(f"no remote sandbox recorded under id={sandbox_id!r}; known: {known}")
        attach = getattr(get(record.backend), "attach", None)
        if attach is None:
            raise AttributeError(
                f"backend {record.backend!r} does not support reattach: it cannot attach to a "
                f"sandbox (no .attach(remote_id) method) to reuse remote_id {record.remote_id!r}"
            )
        sandbox: BackendSandbox = attach(record.remote_id, spec=record.spec)
        self.touch_remote(record.id)
        return sandbox


def _write_private(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON, readable by the user only from the first byte, atomically."""
    temp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    os.replace(temp, path)


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        logger.warning("unreadable remote sandbox record: %s", path)
        return None
    return data if isinstance(data, dict) else None


def _read_record(path: Path) -> RemoteSandboxRecord | None:
    """The record in ``path``; ``None`` (logged) when it cannot be read or is malformed."""
    data = _read_json(path)
    if data is None:
        return None
    try:
        return RemoteSandboxRecord(
            schema_version=int(data.get("schema_version", 0)),
            id=UUID(str(data["id"])),
            backend=str(data.get("backend", "")),
            remote_id=str(data["remote_id"]),
            spec=spec_from_jsonable(data.get("spec")),
            created_at=datetime.fromisoformat(str(data["created_at"])),
            last_used_at=datetime.fromisoformat(str(data["last_used_at"])),
            path=path,
        )
    except (KeyError, ValueError, TypeError, AttributeError):
        logger.warning("malformed remote sandbox record: %s", path)
        return None
