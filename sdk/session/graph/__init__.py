"""The session graph: lineage traversal, validation and export. See docs/modules.md."""

from typing import TYPE_CHECKING

from rath.utils.lazy import lazy_dir, lazy_names

if TYPE_CHECKING:
    from rath.session._graph_mode import session_graph_mode, session_graph_mode_override
    from rath.session.graph._model import SessionGraph
    from rath.session.graph._node import GraphNode
    from rath.session.graph.export import (
        export_journal_jsonl,
        export_jsonl,
        export_jsonl_string,
        session_to_jsonl_row,
    )
    from rath.session.graph.kind import LineageConsistencyError, LineageKind
    from rath.session.graph.legacy import SessionLineage
    from rath.session.graph.recording import (
        FrozenLineageView,
        LineageJournal,
        LineageRecorder,
        lineage_journal_optional,
        lineage_journal_tracking,
        lineage_view_dataclass,
        record_session,
    )
    from rath.session.graph.traverse import (
        LineageCarrier,
        ancestors_bfs,
        descendants_dfs_preorder,
        edge_pairs,
        validate_acyclic,
    )


__all__ = [
    "FrozenLineageView",
    "GraphNode",
    "LineageCarrier",
    "LineageConsistencyError",
    "LineageJournal",
    "LineageKind",
    "LineageRecorder",
    "SessionGraph",
    "SessionLineage",
    "ancestors_bfs",
    "descendants_dfs_preorder",
    "edge_pairs",
    "export_journal_jsonl",
    "export_jsonl",
    "export_jsonl_string",
    "lineage_journal_optional",
    "lineage_journal_tracking",
    "lineage_view_dataclass",
    "record_session",
    "session_graph_mode",
    "session_graph_mode_override",
    "session_to_jsonl_row",
    "validate_acyclic",
]

# Each name loads from the module the TYPE_CHECKING block names, on first use.
__getattr__ = lazy_names(__name__)
__dir__ = lazy_dir(__name__)
