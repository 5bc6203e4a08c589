"""OpenRath's module path ``rath.memory.persistence.paths``: where memory stores live.

Re-exported from ``rath.memory.persistence``.
"""

from rath.memory.persistence import (
    LOCAL_SUBDIR,
    MEMORY_DIR_NAME,
    ensure_local_memory_root,
    local_memory_root,
    local_store_dir,
    memory_root,
)

__all__ = [
    "LOCAL_SUBDIR",
    "MEMORY_DIR_NAME",
    "ensure_local_memory_root",
    "local_memory_root",
    "local_store_dir",
    "memory_root",
]
