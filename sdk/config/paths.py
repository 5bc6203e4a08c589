"""Where OpenRath's config file lives.

The first that applies: ``$OPENRATH_HOME``, a project's ``.openrath/``, ``~/.openrath/``.
"""

from __future__ import annotations

import os
from pathlib import Path

OPENRATH_HOME_ENV = "OPENRATH_HOME"
CONFIG_FILENAME = "config.json"
PROJECT_MARKER_DIR = ".openrath"
USER_DIR_NAME = ".openrath"
SCHEMA_VERSION = 1


def resolve_config_dir() -> Path:
    """The config directory (it may not exist yet).

    Raises:
        FileNotFoundError: ``$OPENRATH_HOME`` names something that is not a directory.
    """
    home = os.environ.get(OPENRATH_HOME_ENV)
    if home:
        path = Path(home).expanduser().resolve()
        if path.exists() and not path.is_dir():
            raise FileNotFoundError(
                f"{OPENRATH_HOME_ENV}={home!r} is not a directory: point it at a directory"
            )
        return path
    local = Path.cwd() / PROJECT_MARKER_DIR
    if local.is_dir():
        return local.resolve()
    return Path.home() / USER_DIR_NAME


def resolve_config_path() -> Path:
    """``config.json`` in :func:`resolve_config_dir`."""
    return resolve_config_dir() / CONFIG_FILENAME


def is_project_local(config_dir: Path) -> bool:
    """Whether ``config_dir`` is the working directory's ``.openrath/``."""
    return config_dir.resolve() == (Path.cwd() / PROJECT_MARKER_DIR).resolve()
