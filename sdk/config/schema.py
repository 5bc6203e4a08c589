"""OpenRath's module path ``rath.config.schema``: the config file's models (re-exports)."""

from __future__ import annotations

from rath.config._models import (
    LLMConfig,
    LLMProviderConfig,
    MCPConfig,
    MCPServerConfig,
    MemoryConfig,
    MemoryProviderConfig,
    RathConfig,
)
from rath.config._paths import SCHEMA_VERSION

__all__ = [
    "SCHEMA_VERSION",
    "LLMConfig",
    "LLMProviderConfig",
    "MCPConfig",
    "MCPServerConfig",
    "MemoryConfig",
    "MemoryProviderConfig",
    "RathConfig",
]
