"""Where the plane's local stores live: ``<RATH_HOME>/memory/local/<uuid or namespace>/``."""

from rath.memory.persistence.paths import (
    LOCAL_SUBDIR,
    MEMORY_DIR_NAME,
    ensure_local_memory_root,
    local_memory_root,
    local_store_dir,
    memory_root,
)
from rath.memory.persistence.registry import PersistentMemoryRegistry

__all__ = [
    "LOCAL_SUBDIR",
    "MEMORY_DIR_NAME",
    "PersistentMemoryRegistry",
    "ensure_local_memory_root",
    "local_memory_root",
    "local_store_dir",
    "memory_root",
]
