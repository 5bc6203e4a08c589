"""Sessions: the values that flow through agents. See docs/modules.md."""

from rath.session._diff import SessionDiff
from rath.session._loop import run_session_loop
from rath.session.chunk import (
    ChunkKind,
    ChunkRow,
    ChunkTable,
    assistant_turn_chunk,
    chunk_table_to_messages,
    format_chunk_row_brief,
    system_text_chunk,
    tool_feedback_chunk,
    user_text_chunk,
)
from rath.session.compress import run_session_compress
from rath.session.default_host import DefaultHost
from rath.session.graph import (
    GraphNode,
    LineageConsistencyError,
    LineageJournal,
    LineageRecorder,
    SessionGraph,
    ancestors_bfs,
    descendants_dfs_preorder,
    edge_pairs,
    lineage_journal_optional,
    lineage_journal_tracking,
    lineage_view_dataclass,
    session_graph_mode,
    session_graph_mode_override,
    validate_acyclic,
)
from rath.session.graph.kind import LineageKind
from rath.session.graph.legacy import SessionLineage
from rath.session.host import set_process_host
from rath.session.manager import SessionRegistry, session_registry
from rath.session.merge import MergePolicy, Summarize, interleave_by_time
from rath.session.placement import Placement
from rath.session.primitives import (
    attach,
    create_system_session,
    create_user_session,
    detach_session,
    fork_session,
)
from rath.session.session import Session
from rath.session.table_ref import TableRef
from rath.utils.lazy import lazy_names

__all__ = [
    "ChunkKind",
    "ChunkRow",
    "ChunkTable",
    "DefaultSessionLoopExecutor",
    "GraphNode",
    "LineageConsistencyError",
    "LineageJournal",
    "LineageKind",
    "LineageRecorder",
    "MergePolicy",
    "PersistedSession",
    "PersistedSessionHeader",
    "PersistedSessionMeta",
    "PersistenceError",
    "Placement",
    "Session",
    "SessionDiff",
    "SessionGraph",
    "SessionLineage",
    "SessionLoopExecutor",
    "SessionRegistry",
    "SessionWriter",
    "Summarize",
    "TableRef",
    "ancestors_bfs",
    "assistant_turn_chunk",
    "attach",
    "chunk_table_to_messages",
    "create_system_session",
    "create_user_session",
    "delete_session",
    "descendants_dfs_preorder",
    "detach_session",
    "edge_pairs",
    "fork_session",
    "format_chunk_row_brief",
    "interleave_by_time",
    "lineage_journal_optional",
    "lineage_journal_tracking",
    "lineage_view_dataclass",
    "list_persisted_sessions",
    "load_session",
    "prune_sessions",
    "run_session_compress",
    "run_session_loop",
    "session_graph_mode",
    "session_graph_mode_override",
    "session_registry",
    "system_text_chunk",
    "tool_feedback_chunk",
    "user_text_chunk",
    "validate_acyclic",
]

# OpenRath's loop executors and session files live on the engines floor: named here, loaded on
# first use (PEP 562), so this value package never imports them.
_STARTERS = {
    "SessionLoopExecutor": "rath.session.loop",
    "DefaultSessionLoopExecutor": "rath.session.loop",
    **dict.fromkeys(
        (
            "load_session",
            "list_persisted_sessions",
            "delete_session",
            "prune_sessions",
            "SessionWriter",
            "PersistedSession",
            "PersistedSessionHeader",
            "PersistedSessionMeta",
            "PersistenceError",
        ),
        "rath.session.persistence",
    ),
}
__getattr__ = lazy_names(__name__, _STARTERS)


set_process_host(DefaultHost())
