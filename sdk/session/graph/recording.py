"""OpenRath's module path ``rath.session.graph.recording``: graph mode, stamping and journals.

Re-exported from ``rath.session.graph``.
"""

from rath.session.graph import (
    LineageJournal,
    LineageRecorder,
    lineage_journal_optional,
    lineage_journal_tracking,
    session_graph_mode,
    session_graph_mode_override,
)

__all__ = [
    "LineageJournal",
    "LineageRecorder",
    "lineage_journal_optional",
    "lineage_journal_tracking",
    "session_graph_mode",
    "session_graph_mode_override",
]
