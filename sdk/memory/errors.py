"""OpenRath's module path ``rath.memory.errors``: the memory plane's errors.

Re-exported from ``rath.memory``.
"""

from rath.memory import (
    MemoryBackendError,
    MemoryBackendNotFound,
    MemoryConflict,
    MemoryNotFound,
    MemoryStoreClosed,
    UnsupportedMemoryOp,
)

__all__ = [
    "MemoryBackendError",
    "MemoryBackendNotFound",
    "MemoryConflict",
    "MemoryNotFound",
    "MemoryStoreClosed",
    "UnsupportedMemoryOp",
]
