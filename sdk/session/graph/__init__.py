"""The session graph: lineage traversal, validation and export (OpenRath's ``rath.session.graph``).

Sessions form a DAG through ``parent_session_ids`` (edges run producer -> consumer). A
:class:`SessionGraph` is a snapshot of it as :class:`GraphNode` values, read from sessions
without ever waiting for a lazy run, and exported as JSONL (OpenRath's row format plus
``agent`` and ``run_id``), Mermaid or Graphviz DOT::

    with lineage_journal_tracking() as journal:
        plan = root.fork()
        ...
    graph = journal.graph()
    graph.validate()
    graph.write_jsonl("lineage.jsonl")

The plain functions (:func:`ancestors_bfs` and friends) work on any ``Mapping[UUID, carrier]``
whose values have ``id`` and ``parent_session_ids``, sessions included.
"""

from rath.errors import LineageConsistencyError
from rath.session._graph_mode import session_graph_mode, session_graph_mode_override
from rath.session._lineage import LineageKind, SessionLineage
from rath.session.graph._export import (
    export_journal_jsonl,
    export_jsonl,
    export_jsonl_string,
    session_to_jsonl_row,
)
from rath.session.graph._journal import (
    LineageJournal,
    lineage_journal_optional,
    lineage_journal_tracking,
    record_session,
)
from rath.session.graph._model import SessionGraph
from rath.session.graph._node import GraphNode
from rath.session.graph._recorder import (
    FrozenLineageView,
    LineageRecorder,
    lineage_view_dataclass,
)
from rath.session.graph._traverse import (
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
