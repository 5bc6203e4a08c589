"""OpenRath's module path ``rath.memory.capabilities``: what a memory backend supports.

Re-exported from ``rath.memory``.
"""

from rath.memory import MemoryCapabilities, ScopeModel

__all__ = ["MemoryCapabilities", "ScopeModel"]
