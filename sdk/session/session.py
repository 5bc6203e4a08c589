"""OpenRath's module path ``rath.session.session``: the ``Session`` class.

Re-exported from ``rath.session._session``.
"""

from rath.session._session import Session

__all__ = ["Session"]
