"""OpenRath's module path ``rath.memory.op_types``: the memory plane's operations.

Re-exported from ``rath.memory``.
"""

from rath.memory import (
    MemoryOp,
    MemoryOpCommit,
    MemoryOpFind,
    MemoryOpList,
    MemoryOpRead,
    MemoryOpResource,
    MemoryOpTree,
    MemoryOpWrite,
)

__all__ = [
    "MemoryOp",
    "MemoryOpCommit",
    "MemoryOpFind",
    "MemoryOpList",
    "MemoryOpRead",
    "MemoryOpResource",
    "MemoryOpTree",
    "MemoryOpWrite",
]
