"""The local stores on disk, by id (OpenRath's ``rath.memory.persistence.registry``)."""

from __future__ import annotations

import shutil
import uuid
from datetime import timedelta
from pathlib import Path

from rath.memory.persistence.paths import local_memory_root
from rath.utils.local_dirs import LocalDirRegistry

__all__ = ["PersistentMemoryRegistry"]


class PersistentMemoryRegistry(LocalDirRegistry):
    """The local stores on disk, by id."""

    kind = "local memory store"

    def _root(self) -> Path:
        return local_memory_root()

    def _is_id(self, name: str) -> bool:
        # Canonical form only: "{...}" or unhyphenated names would map back to another directory.
        try:
            return str(uuid.UUID(name)) == name
        except ValueError:
            return False

    def _stamp(self, path: Path) -> Path:
        meta = path / "meta.json"
        return meta if meta.exists() else path

    def prune_local(self, older_than: timedelta | float) -> list[uuid.UUID]:
        """Delete the UUID-named stores untouched for ``older_than``; their ids (named stay)."""
        age = older_than.total_seconds() if isinstance(older_than, timedelta) else older_than
        pruned = self._stale(age)
        for store_id in pruned:
            shutil.rmtree(self.local_path(store_id), ignore_errors=True)
        return pruned
