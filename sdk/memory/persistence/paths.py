"""Where memory stores live (OpenRath's ``rath.memory.persistence.paths``)."""

from __future__ import annotations

import uuid
from pathlib import Path

from rath.memory.describe import memory_dir
from rath.utils.local_dirs import local_dir

MEMORY_DIR_NAME = "memory"
LOCAL_SUBDIR = "local"


def memory_root() -> Path:
    """``<RATH_HOME>/memory`` (not created): :func:`rath.memory.describe.memory_dir`."""
    return memory_dir()


def local_memory_root() -> Path:
    """``<RATH_HOME>/memory/local``, the local stores' parent (not created)."""
    return memory_root() / LOCAL_SUBDIR


def ensure_local_memory_root() -> Path:
    """:func:`local_memory_root`, created."""
    root = local_memory_root()
    root.mkdir(parents=True, exist_ok=True)
    return root


def local_store_dir(store_id: str | uuid.UUID) -> Path:
    """The directory of local store ``store_id`` (``ValueError``: not a plain name)."""
    return local_dir(local_memory_root(), store_id, "local memory store")
