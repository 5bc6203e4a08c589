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
from rath.session._lineage import LineageKind
from rath.session._loop import run_session_loop
from rath.session._session import Placement, Session
from rath.session._table_ref import TableRef

__all__ = [
    "ChunkKind",
    "ChunkRow",
    "ChunkTable",
    "LineageKind",
    "Placement",
    "Session",
    "TableRef",
    "assistant_turn_chunk",
    "chunk_table_to_messages",
    "format_chunk_row_brief",
    "run_session_loop",
    "system_text_chunk",
    "tool_feedback_chunk",
    "user_text_chunk",
]
