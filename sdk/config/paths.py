"""OpenRath's module path ``rath.config.paths``: where the config file lives (re-exports)."""

from __future__ import annotations

from rath.config._paths import (
    CONFIG_FILENAME,
    OPENRATH_HOME_ENV,
    PROJECT_MARKER_DIR,
    USER_DIR_NAME,
    is_project_local,
    resolve_config_dir,
    resolve_config_path,
)

__all__ = [
    "CONFIG_FILENAME",
    "OPENRATH_HOME_ENV",
    "PROJECT_MARKER_DIR",
    "USER_DIR_NAME",
    "is_project_local",
    "resolve_config_dir",
    "resolve_config_path",
]
