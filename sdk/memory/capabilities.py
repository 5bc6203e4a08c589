"""What a memory backend can do (OpenRath's ``rath.memory.capabilities``)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rath.memory import op_types as ops


class ScopeModel(StrEnum):
    """How a backend organises what it stores (a str enum, as in OpenRath)."""

    KV = "kv"
    FS = "fs"
    VECTOR = "vector"
    HYBRID = "hybrid"


@dataclass(frozen=True, slots=True)
class MemoryCapabilities:
    """What a memory backend can do."""

    scope_model: ScopeModel
    supports_write: bool = True
    supports_read: bool = True
    supports_list: bool = True
    supports_tree: bool = True
    supports_vector_search: bool = False
    supports_intent_search: bool = False
    supports_resource_ingest: bool = False
    supports_session_commit: bool = False
    supports_l0_l1_l2: bool = False

    def ops(self) -> frozenset[type[ops.MemoryOp]]:
        """The op types these capabilities allow (search runs as find without intent)."""
        allowed = {
            ops.MemoryOpWrite: self.supports_write,
            ops.MemoryOpRead: self.supports_read,
            ops.MemoryOpList: self.supports_list,
            ops.MemoryOpTree: self.supports_tree,
            ops.MemoryOpFind: True,
            ops.MemoryOpSearch: True,
            ops.MemoryOpResource: self.supports_resource_ingest,
            ops.MemoryOpCommit: self.supports_session_commit,
        }
        return frozenset(op for op, ok in allowed.items() if ok)
