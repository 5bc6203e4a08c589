"""OpenRath's module path ``rath.session.graph.kind``: lineage kinds and the consistency error.

Re-exported from ``rath.session.graph``.
"""

from rath.session.graph import LineageConsistencyError, LineageKind

__all__ = ["LineageConsistencyError", "LineageKind"]
