"""Where sandbox records live (OpenRath's ``rath.backend.persistence.paths``)."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

from rath.settings import Settings
from rath.utils.local_dirs import local_dir

SANDBOXES_DIR_NAME = "sandboxes"
LOCAL_SUBDIR = "local"
OPENSANDBOX_SUBDIR = "opensandbox"
OPENSANDBOX_INDEX_SUFFIX = ".json"


def sandboxes_dir() -> Path:
    """``<RATH_HOME>/sandboxes`` (not created)."""
    return Settings.from_env().home / SANDBOXES_DIR_NAME


def local_root() -> Path:
    """Where local sandbox directories live (not created)."""
    return sandboxes_dir() / LOCAL_SUBDIR


def local_sandbox_dir(sandbox_id: UUID | str) -> Path:
    """The directory of local sandbox ``sandbox_id``.

    Raises:
        ValueError: ``sandbox_id`` is not one plain directory name.
    """
    return local_dir(local_root(), sandbox_id, "local sandbox")


def opensandbox_root() -> Path:
    """Where remote sandbox records live (not created)."""
    return sandboxes_dir() / OPENSANDBOX_SUBDIR


def opensandbox_index_path(sandbox_id: UUID | str) -> Path:
    """The record of remote sandbox ``sandbox_id``."""
    return opensandbox_root() / f"{sandbox_id}{OPENSANDBOX_INDEX_SUFFIX}"


def ensure_local_root() -> Path:
    """:func:`local_root`, created."""
    root = local_root()
    root.mkdir(parents=True, exist_ok=True)
    return root


def ensure_opensandbox_root() -> Path:
    """:func:`opensandbox_root`, created."""
    root = opensandbox_root()
    root.mkdir(parents=True, exist_ok=True)
    return root
