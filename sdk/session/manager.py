"""OpenRath's module path ``rath.session.manager``: the process's session registry.

Re-exported from ``rath.session._registry``.
"""

from rath.session._registry import SessionRegistry, session_registry

__all__ = ["SessionRegistry", "session_registry"]
