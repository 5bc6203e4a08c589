"""OpenRath's module path ``rath.config.store``: ``ConfigStore`` and its error (re-exports)."""

from __future__ import annotations

from rath.config._paths import resolve_config_dir
from rath.config._store import ConfigStore, default_store
from rath.errors import ConfigError

__all__ = ["ConfigError", "ConfigStore", "default_store", "resolve_config_dir"]
