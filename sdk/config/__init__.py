"""OpenRath's config file (``config.json``): LLM, MCP and memory presets.

The file lives in :func:`resolve_config_dir` (``$OPENRATH_HOME``, a project's ``.openrath/``,
or ``~/.openrath/``), is read through :class:`ConfigStore` and used by ``from_config``
constructors such as :meth:`rath.llm.Provider.from_config`. Values given in code win over the
environment, which wins over the file.
"""

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
