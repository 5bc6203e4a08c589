"""Sandbox identities that outlive a process (OpenRath's ``rath.backend.persistence``).

Local sandboxes get a directory ``<RATH_HOME>/sandboxes/local/<uuid>/``; remote ones a record
``<RATH_HOME>/sandboxes/<backend>/<uuid>.json`` (mode 600) naming the remote id, so a later
process can reattach. Nothing records ids automatically: callers do.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
import uuid
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

from rath.backend._handle import BackendSandbox
from rath.backend._registry import get
from rath.backend._types import BackendSandboxSpec
from rath.settings import Settings

SCHEMA_VERSION = 1
LOCAL = "local"


def sandboxes_dir() -> Path:
    """``<RATH_HOME>/sandboxes`` (not created)."""
    return Settings.from_env().home / "sandboxes"


def local_root() -> Path:
    """Where local sandbox directories live."""
    return sandboxes_dir() / LOCAL


def local_sandbox_dir(sandbox_id: UUID) -> Path:
    """The directory of local sandbox ``sandbox_id``."""
    return local_root() / str(sandbox_id)


def remote_root(backend: str) -> Path:
    """Where the records of ``backend``'s remote sandboxes live."""
    return sandboxes_dir() / backend


def opensandbox_root() -> Path:
    """OpenRath's name for the OpenSandbox records' directory."""
    return remote_root("opensandbox")


def opensandbox_index_path(sandbox_id: UUID) -> Path:
    """The record of OpenSandbox sandbox ``sandbox_id``."""
    return opensandbox_root() / f"{sandbox_id}.json"


def ensure_local_root() -> Path:
    """:func:`local_root`, created."""
    root = local_root()
    root.mkdir(parents=True, exist_ok=True)
    return root


def ensure_opensandbox_root() -> Path:
    """:func:`opensandbox_root`, created."""
    root = opensandbox_root()
    root.mkdir(parents=True, exist_ok=True)
    return root


@dataclass(frozen=True)
class RemoteSandboxRecord:
    """A remote sandbox's record: which backend, its remote id, its spec and times."""

    schema_version: int
    id: UUID
    backend: str
    remote_id: str
    spec: dict[str, Any] | None
    created_at: datetime
    last_used_at: datetime
    path: Path


class PersistentSandboxRegistry:
    """Allocates, lists, prunes and reattaches sandbox identities (state on disk only)."""

    def ensure_dirs(self) -> None:
        """Create the local root."""
        ensure_local_root()

    def alloc_local_id(self) -> UUID:
        """A new local sandbox id, with its directory created."""
        sandbox_id = uuid.uuid4()
        self.ensure_local(sandbox_id)
        return sandbox_id

    def ensure_local(self, sandbox_id: UUID) -> Path:
        """The directory of ``sandbox_id``, created if missing."""
        path = local_sandbox_dir(sandbox_id)
        path.mkdir(parents=True, exist_ok=True)
        return path

    def local_path(self, sandbox_id: UUID) -> Path:
        """The directory of ``sandbox_id`` (not created)."""
        return local_sandbox_dir(sandbox_id)

    def list_local(self) -> list[UUID]:
        """The local sandbox ids, sorted."""
        root = local_root()
        if not root.is_dir():
            return []
        return sorted(UUID(p.name) for p in root.iterdir() if p.is_dir() and _is_uuid(p.name))

    def delete_local(self, sandbox_id: UUID) -> bool:
        """Delete a local sandbox's directory; whether there was one."""
        path = local_sandbox_dir(sandbox_id)
        if not path.is_dir():
            return False
        shutil.rmtree(path)
        return True

    def prune_local(self, *, older_than: timedelta) -> list[UUID]:
        """Delete local sandboxes whose directory was last modified before ``older_than`` ago."""
        cutoff = time.time() - older_than.total_seconds()
        pruned = [i for i in self.list_local() if local_sandbox_dir(i).stat().st_mtime < cutoff]
        for sandbox_id in pruned:
            self.delete_local(sandbox_id)
        return pruned

    def record_remote(
        self,
        backend: str,
        remote_id: str,
        spec: BackendSandboxSpec | None = None,
        *,
        sandbox_id: UUID | None = None,
    ) -> UUID:
        """Record a remote sandbox (file mode 600); returns its id."""
        sandbox_id = sandbox_id or uuid.uuid4()
        now = datetime.now(UTC).isoformat()
        spec_data = None if spec is None else _spec_json(spec)
        record = {
            "schema_version": SCHEMA_VERSION,
            "id": str(sandbox_id),
            "backend": backend,
            "remote_id": remote_id,
            "spec": spec_data,
            "created_at": now,
            "last_used_at": now,
        }
        path = remote_root(backend) / f"{sandbox_id}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record, indent=2))
        os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
        return sandbox_id

    def load_remote(self, sandbox_id: UUID) -> RemoteSandboxRecord | None:
        """The record of ``sandbox_id``, or ``None``."""
        path = self._remote_path(sandbox_id)
        return None if path is None else _read_record(path)

    def list_remote(self) -> list[RemoteSandboxRecord]:
        """Every remote record, oldest first."""
        records = [_read_record(path) for path in self._remote_paths()]
        return sorted(records, key=lambda r: r.created_at)

    def touch_remote(self, sandbox_id: UUID) -> None:
        """Set a record's ``last_used_at`` to now."""
        path = self._remote_path(sandbox_id)
        if path is not None:
            data = json.loads(path.read_text())
            data["last_used_at"] = datetime.now(UTC).isoformat()
            path.write_text(json.dumps(data, indent=2))

    def delete_remote(self, sandbox_id: UUID) -> bool:
        """Delete a record (the remote sandbox itself is left alone); whether there was one."""
        path = self._remote_path(sandbox_id)
        if path is None:
            return False
        path.unlink()
        return True

    def prune_remote(self, *, older_than: timedelta) -> list[UUID]:
        """Delete records last used before ``older_than`` ago."""
        cutoff = datetime.now(UTC) - older_than
        pruned = [r.id for r in self.list_remote() if r.last_used_at < cutoff]
        for sandbox_id in pruned:
            self.delete_remote(sandbox_id)
        return pruned

    def reattach_remote(self, sandbox_id: UUID) -> BackendSandbox:
        """Reconnect to a recorded remote sandbox through its backend's ``attach``.

        Raises:
            KeyError: No record has that id.
            AttributeError: The backend cannot attach to running sandboxes.
        """
        record = self.load_remote(sandbox_id)
        if record is None:
            raise KeyError(f"no remote sandbox record {sandbox_id}")
        backend = get(record.backend)
        attach = getattr(backend, "attach", None)
        if attach is None:
            raise AttributeError(f"backend {record.backend!r} cannot attach to a sandbox")
        spec = None if record.spec is None else BackendSandboxSpec(**record.spec)
        sandbox: BackendSandbox = attach(record.remote_id, spec=spec)
        self.touch_remote(sandbox_id)
        return sandbox

    def _remote_paths(self) -> list[Path]:
        root = sandboxes_dir()
        if not root.is_dir():
            return []
        return [
            path
            for folder in root.iterdir()
            if folder.is_dir() and folder.name != LOCAL
            for path in folder.glob("*.json")
        ]

    def _remote_path(self, sandbox_id: UUID) -> Path | None:
        name = f"{sandbox_id}.json"
        return next((p for p in self._remote_paths() if p.name == name), None)


def _is_uuid(text: str) -> bool:
    try:
        UUID(text)
    except ValueError:
        return False
    return True


def _spec_json(spec: BackendSandboxSpec) -> dict[str, Any]:
    data = asdict(spec)
    if spec.timeout is not None:
        data["timeout"] = spec.timeout.total_seconds()
    for key in ("entrypoint", "env"):
        if data[key] is not None:
            data[key] = list(data[key]) if key == "entrypoint" else dict(data[key])
    return data


def _read_record(path: Path) -> RemoteSandboxRecord:
    data = json.loads(path.read_text())
    spec = data.get("spec")
    if spec is not None and spec.get("timeout") is not None:
        spec = {**spec, "timeout": timedelta(seconds=spec["timeout"])}
    return RemoteSandboxRecord(
        schema_version=data["schema_version"],
        id=UUID(data["id"]),
        backend=data["backend"],
        remote_id=data["remote_id"],
        spec=spec,
        created_at=datetime.fromisoformat(data["created_at"]),
        last_used_at=datetime.fromisoformat(data["last_used_at"]),
        path=path,
    )
