"""Sandbox leases: which sessions hold a sandbox, who owns it, and when it is closed.

See docs/sandboxes.md, "Where the code is".
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

from rath.backend.lease import Lease

__all__ = ["Lease", "LeaseRegistry"]


class LeaseRegistry:
    """The records under ``root`` (one ``<sandbox id>.json`` each, plus a lock file)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def get(self, sandbox_id: UUID) -> Lease | None:
        """The record of ``sandbox_id``, if any."""
        with self._locked():
            return self._read(sandbox_id)

    def acquire(self, sandbox_id: UUID, backend: str, holder: str, **fields: Any) -> Lease:
        """Add ``holder``; creates the record with ``fields`` on first use."""
        with self._locked():
            lease = self._read(sandbox_id) or Lease(
                sandbox_id=sandbox_id, backend=backend, **fields
            )
            if holder not in lease.holders:
                lease.holders.append(holder)
            self._write(lease)
            return lease

    def set_owner(
        self, sandbox_id: UUID, backend: str, owner: str, workspace: str, allocated: bool
    ) -> Lease:
        """Record the worker that opened the sandbox (the first one wins); returns the record."""
        with self._locked():
            lease = self._read(sandbox_id) or Lease(sandbox_id=sandbox_id, backend=backend)
            if lease.owner is None:
                lease = lease.model_copy(
                    update={"owner": owner, "workspace": workspace, "allocated": allocated}
                )
                self._write(lease)
            return lease

    def release(self, sandbox_id: UUID, holder: str) -> Lease | None:
        """Remove ``holder``; returns the record when that was the last one.

        The record stays (with no holders) until :meth:`forget`: the caller closes the
        sandbox first, so a crash in between cannot lose track of a workspace to delete.
        """
        with self._locked():
            lease = self._read(sandbox_id)
            if lease is None:
                return None
            was_held = holder in lease.holders
            if was_held:
                lease.holders.remove(holder)
                self._write(lease)
            return None if lease.holders or not was_held else lease

    def forget(self, sandbox_id: UUID) -> None:
        """Delete a closed sandbox's record, unless a new holder came meanwhile."""
        with self._locked():
            lease = self._read(sandbox_id)
            if lease is not None and not lease.holders:
                self._path(sandbox_id).unlink(missing_ok=True)

    def stale(self, written_before: float, live_holders: Collection[str]) -> list[Lease]:
        """Records last written before ``written_before`` that no live holder names.

        Such a record was left behind by a process that ended without releasing its sessions
        (``written_before`` is in epoch seconds; ``live_holders`` are session ids).
        """
        out: list[Lease] = []
        with self._locked():
            for path in sorted(self.root.glob("*.json")):
                lease = self._stale(path, written_before, live_holders)
                if lease is not None:
                    out.append(lease)
        return out

    def drop_stale(
        self, sandbox_id: UUID, written_before: float, live_holders: Collection[str]
    ) -> bool:
        """Delete a record if it is still stale (no holder came meanwhile); returns whether."""
        with self._locked():
            path = self._path(sandbox_id)
            if self._stale(path, written_before, live_holders) is None:
                return False
            path.unlink(missing_ok=True)
            return True

    def _stale(
        self, path: Path, written_before: float, live_holders: Collection[str]
    ) -> Lease | None:
        try:
            if path.stat().st_mtime >= written_before:
                return None
            lease = Lease.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            return None
        except ValueError:  # an unreadable record: nobody can use it either
            try:
                return Lease.model_construct(sandbox_id=UUID(path.stem), backend="?")
            except ValueError:  # not a record at all: leave it alone
                return None
        return None if any(h in live_holders for h in lease.holders) else lease

    def _path(self, sandbox_id: UUID) -> Path:
        return self.root / f"{sandbox_id}.json"

    def _read(self, sandbox_id: UUID) -> Lease | None:
        try:
            return Lease.model_validate_json(self._path(sandbox_id).read_bytes())
        except FileNotFoundError:
            return None

    def _write(self, lease: Lease) -> None:
        path = self._path(lease.sandbox_id)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(lease.model_dump(mode="json")))
        os.replace(tmp, path)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / ".lock", "a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
