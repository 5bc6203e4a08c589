"""OpenRath's module path ``rath.memory.persistence.registry``: the registry of local memory stores.

Re-exported from ``rath.memory.persistence``.
"""

from rath.memory.persistence import PersistentMemoryRegistry

__all__ = ["PersistentMemoryRegistry"]
