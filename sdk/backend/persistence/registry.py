"""OpenRath's module path ``rath.backend.persistence.registry``: the registry of sandboxes.

Re-exported from ``rath.backend.persistence``.
"""

from rath.backend.persistence import PersistentSandboxRegistry, RemoteSandboxRecord

__all__ = ["PersistentSandboxRegistry", "RemoteSandboxRecord"]
