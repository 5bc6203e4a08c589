"""OpenRath's config file (``config.json``): LLM, MCP and memory presets. See docs/modules.md."""

from __future__ import annotations

from rath.config.paths import (
    CONFIG_FILENAME,
    OPENRATH_HOME_ENV,
    PROJECT_MARKER_DIR,
    SCHEMA_VERSION,
    USER_DIR_NAME,
    is_project_local,
    resolve_config_dir,
    resolve_config_path,
)
from rath.config.schema import (
    LLMConfig,
    LLMProviderConfig,
    MCPConfig,
    MCPServerConfig,
    MemoryConfig,
    MemoryProviderConfig,
    RathConfig,
)
from rath.config.store import ConfigStore, default_store
from rath.errors import ConfigError

__all__ = [
    "CONFIG_FILENAME",
    "OPENRATH_HOME_ENV",
    "PROJECT_MARKER_DIR",
    "SCHEMA_VERSION",
    "USER_DIR_NAME",
    "ConfigError",
    "ConfigStore",
    "LLMConfig",
    "LLMProviderConfig",
    "MCPConfig",
    "MCPServerConfig",
    "MemoryConfig",
    "MemoryProviderConfig",
    "RathConfig",
    "default_store",
    "is_project_local",
    "resolve_config_dir",
    "resolve_config_path",
]
