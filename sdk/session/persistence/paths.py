"""Where session files live: ``<RATH_HOME>/sessions/<id>.jsonl`` (and its partial twin)."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

from rath.settings import Settings

SESSIONS_DIR_NAME = "sessions"
SESSION_FILE_SUFFIX = ".jsonl"
SESSION_PARTIAL_SUFFIX = ".jsonl.__partial__"


def sessions_dir() -> Path:
    """The directory of session files (not created)."""
    return Settings.from_env().home / SESSIONS_DIR_NAME


def ensure_sessions_dir() -> Path:
    """:func:`sessions_dir`, created (mode 0700) if missing."""
    directory = sessions_dir()
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    return directory


def session_file(session_id: UUID | str) -> Path:
    """The closed file of a session."""
    return sessions_dir() / f"{UUID(str(session_id))}{SESSION_FILE_SUFFIX}"


def session_partial_file(session_id: UUID | str) -> Path:
    """The file of a session still being written, or whose writer died (the crash marker)."""
    return sessions_dir() / f"{UUID(str(session_id))}{SESSION_PARTIAL_SUFFIX}"


def partial_of(path: Path) -> Path:
    """The partial twin of a closed file's path."""
    return path.with_name(path.name + ".__partial__")
