"""Sessions: the values that flow through agents (transcript, lineage, placement, usage)."""

from rath.session._chunks import (
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
from rath.session._compress import run_session_compress
from rath.session._diff import SessionDiff
from rath.session._lineage import LineageKind
from rath.session._loop import run_session_loop
from rath.session._merge import MergePolicy, Summarize, interleave_by_time
from rath.session._session import Placement, Session
from rath.session._table_ref import TableRef
from rath.session.graph import (
    GraphNode,
    LineageConsistencyError,
    LineageJournal,
    SessionGraph,
    ancestors_bfs,
    descendants_dfs_preorder,
    edge_pairs,
    lineage_journal_optional,
    lineage_journal_tracking,
    validate_acyclic,
)

__all__ = [
    "ChunkKind",
    "ChunkRow",
    "ChunkTable",
    "GraphNode",
    "LineageConsistencyError",
    "LineageJournal",
    "LineageKind",
    "MergePolicy",
    "Placement",
    "Session",
    "SessionDiff",
    "SessionGraph",
    "Summarize",
    "TableRef",
    "ancestors_bfs",
    "assistant_turn_chunk",
    "chunk_table_to_messages",
    "descendants_dfs_preorder",
    "edge_pairs",
    "format_chunk_row_brief",
    "interleave_by_time",
    "lineage_journal_optional",
    "lineage_journal_tracking",
    "run_session_compress",
    "run_session_loop",
    "system_text_chunk",
    "tool_feedback_chunk",
    "user_text_chunk",
    "validate_acyclic",
]
