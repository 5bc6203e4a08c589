"""The config file's schema (OpenRath's ``config.json``); unknown keys round-trip."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rath.config.paths import SCHEMA_VERSION  # noqa: F401 (OpenRath's rath.config.schema has it)


class _Section(BaseModel):
    model_config = ConfigDict(extra="allow")


class LLMProviderConfig(_Section):
    """One named model endpoint (``llm.providers.<name>``)."""

    provider_kind: Literal["openai", "anthropic"] | None = None
    model: str | None = None
    api_key: str | None = Field(default=None, repr=False)
    base_url: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None


class LLMConfig(_Section):
    """Model endpoints and which of them serve chat, embeddings and images by default."""

    default_provider: str | None = None
    embedding_provider: str | None = None
    vlm_provider: str | None = None
    providers: dict[str, LLMProviderConfig] = Field(default_factory=dict)


class MCPServerConfig(_Section):
    """A stdio MCP server: the command (argv) and its extra environment."""

    command: list[str] | str
    env: dict[str, str] = Field(default_factory=dict)


class MCPConfig(_Section):
    """MCP servers by name, and those enabled by default."""

    default_enabled: list[str] = Field(default_factory=list)
    servers: dict[str, MCPServerConfig] = Field(default_factory=dict)


class MemoryProviderConfig(_Section):
    """A memory store preset (``memory.providers.<name>``)."""

    backend_kind: Literal["local"] = "local"
    path: str | None = None
    embedding_provider: str | None = None
    chat_provider: str | None = None


class MemoryConfig(_Section):
    """Memory store presets and the default one."""

    default_provider: str | None = None
    providers: dict[str, MemoryProviderConfig] = Field(default_factory=dict)


class RathConfig(_Section):
    """The whole file."""

    version: int = 1
    llm: LLMConfig = Field(default_factory=LLMConfig)
    mcp: MCPConfig = Field(default_factory=MCPConfig)
    memory: MemoryConfig = Field(default_factory=MemoryConfig)
