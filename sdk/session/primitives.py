"""OpenRath's module path ``rath.session.primitives``: session constructors, fork and detach.

Re-exported from ``rath.session._primitives``.
"""

from rath.session._primitives import (
    create_system_session,
    create_user_session,
    detach_session,
    fork_session,
)

__all__ = ["create_system_session", "create_user_session", "detach_session", "fork_session"]
