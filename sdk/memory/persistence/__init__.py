"""Where the plane's local memory stores live: ``<RATH_HOME>/memory/local/<id>/``.

:class:`PersistentMemoryRegistry` allocates, lists and deletes those directories. As in
OpenRath, their ids are UUIDs; a named store (``<RATH_HOME>/memory/local/<namespace>/``) is
neither listed nor pruned. Rath's own default store (``<RATH_HOME>/memory/memory.db``,
:func:`rath.memory.default_memory_store`) sits beside them.
"""

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
