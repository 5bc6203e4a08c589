"""OpenRath's module path ``rath.session.persistence.paths``: where persisted session files live.

Re-exported from ``rath.session.persistence``.
"""

from rath.session.persistence import (
    SESSION_FILE_SUFFIX,
    SESSIONS_DIR_NAME,
    ensure_sessions_dir,
    session_file,
    sessions_dir,
)

__all__ = [
    "SESSIONS_DIR_NAME",
    "SESSION_FILE_SUFFIX",
    "ensure_sessions_dir",
    "session_file",
    "sessions_dir",
]
