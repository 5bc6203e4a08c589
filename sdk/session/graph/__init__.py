"""The session graph: lineage traversal, validation and export. See docs/modules.md."""

from typing import TYPE_CHECKING

from rath.utils.lazy import lazy_names

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

_EXPORTS: dict[str, str] = {
    "FrozenLineageView": "rath.session.graph.recording",
    "GraphNode": "rath.session.graph._node",
    "LineageCarrier": "rath.session.graph.traverse",
    "LineageConsistencyError": "rath.session.graph.kind",
    "LineageJournal": "rath.session.graph.recording",
    "LineageKind": "rath.session.graph.kind",
    "LineageRecorder": "rath.session.graph.recording",
    "SessionGraph": "rath.session.graph._model",
    "SessionLineage": "rath.session.graph.legacy",
    "ancestors_bfs": "rath.session.graph.traverse",
    "descendants_dfs_preorder": "rath.session.graph.traverse",
    "edge_pairs": "rath.session.graph.traverse",
    "export_journal_jsonl": "rath.session.graph.export",
    "export_jsonl": "rath.session.graph.export",
    "export_jsonl_string": "rath.session.graph.export",
    "lineage_journal_optional": "rath.session.graph.recording",
    "lineage_journal_tracking": "rath.session.graph.recording",
    "lineage_view_dataclass": "rath.session.graph.recording",
    "record_session": "rath.session.graph.recording",
    "session_graph_mode": "rath.session._graph_mode",
    "session_graph_mode_override": "rath.session._graph_mode",
    "session_to_jsonl_row": "rath.session.graph.export",
    "validate_acyclic": "rath.session.graph.traverse",
}
"""Each public name -> the module that defines it."""

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

__getattr__ = lazy_names(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
