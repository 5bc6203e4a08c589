"""OpenRath's module path ``rath.session.chunk``: the chunk model and its helpers.

Re-exported from ``rath.session._chunks``.
"""

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

__all__ = [
    "ChunkKind",
    "ChunkRow",
    "ChunkTable",
    "assistant_turn_chunk",
    "chunk_table_to_messages",
    "format_chunk_row_brief",
    "system_text_chunk",
    "tool_feedback_chunk",
    "user_text_chunk",
]
