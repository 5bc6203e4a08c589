"""OpenRath's module path ``rath.session.graph.traverse``: walks over the lineage graph.

Re-exported from ``rath.session.graph``.
"""

from rath.session.graph import ancestors_bfs, descendants_dfs_preorder, edge_pairs, validate_acyclic

__all__ = ["ancestors_bfs", "descendants_dfs_preorder", "edge_pairs", "validate_acyclic"]
