"""The local stores on disk, by id (OpenRath's ``rath.memory.persistence.registry``)."""

from __future__ import annotations

import shutil
import time
import uuid
from datetime import timedelta
from pathlib import Path

from rath.memory.persistence.paths import local_memory_root, local_store_dir

__all__ = ["PersistentMemoryRegistry"]


class PersistentMemoryRegistry:
    """The local stores on disk, by id."""

    def alloc_local_id(self) -> uuid.UUID:
        """A new store id (a UUID), with its directory created."""
        store_id = uuid.uuid4()
        self.ensure_local(store_id)
        return store_id

    def ensure_local(self, store_id: str | uuid.UUID) -> Path:
        """The store's directory, created."""
        path = local_store_dir(store_id)
        path.mkdir(parents=True, exist_ok=True)
        return path

    def local_path(self, store_id: str | uuid.UUID) -> Path:
        """The store's directory (whether or not it exists)."""
        return local_store_dir(store_id)

    def list_local(self) -> list[uuid.UUID]:
        """The ids of the UUID-named stores on disk, sorted (named stores are not listed)."""
        root = local_memory_root()
        if not root.is_dir():
            return []
        return sorted(uuid.UUID(p.name) for p in root.iterdir() if p.is_dir() and _is_uuid(p.name))

    def delete_local(self, store_id: str | uuid.UUID) -> bool:
        """Delete a store and everything in it; whether it existed."""
        path = local_store_dir(store_id)
        if not path.is_dir():
            return False
        shutil.rmtree(path)
        return True

    def prune_local(self, older_than: timedelta | float) -> list[uuid.UUID]:
        """Delete the UUID-named stores untouched for ``older_than``; their ids (named stay)."""
        age = older_than.total_seconds() if isinstance(older_than, timedelta) else older_than
        cutoff = time.time() - age
        pruned = []
        for store_id in self.list_local():
            path = local_store_dir(store_id)
            if _last_touched(path) < cutoff:
                shutil.rmtree(path, ignore_errors=True)
                pruned.append(store_id)
        return pruned


def _is_uuid(name: str) -> bool:
    # Canonical form only: "{...}" or unhyphenated names would map back to another directory.
    try:
        return str(uuid.UUID(name)) == name
    except ValueError:
        return False


def _last_touched(path: Path) -> float:
    meta = path / "meta.json"
    return (meta if meta.exists() else path).stat().st_mtime
