"""``ConfigStore``: the config file, read (and cached while it does not change) and saved."""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import ClassVar, Self

from pydantic import ValidationError

from rath.config._models import (
    LLMProviderConfig,
    MCPServerConfig,
    MemoryProviderConfig,
    RathConfig,
)
from rath.config._paths import SCHEMA_VERSION, is_project_local, resolve_config_path
from rath.config.secrets import (
    chmod_user_only,
    ensure_config_dir_gitignore,
    ensure_project_gitignore_entry,
    warn_if_world_readable,
)
from rath.errors import ConfigEntryNotFoundError, ConfigError


class ConfigStore:
    """The config file at ``path`` (default: :func:`~rath.config.resolve_config_path`).

    ``ConfigStore(path)`` always reads the file; :meth:`load` reuses what it read while the
    file's size and modification time stay the same. A missing file gives the defaults.

    Raises:
        ConfigError: The file is not valid JSON (line and column named), not an object, or
            does not match the schema.
    """

    _cache: ClassVar[dict[Path, tuple[tuple[int, int], RathConfig]]] = {}
    _warned: ClassVar[set[Path]] = set()
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, path: Path | None = None) -> None:
        self.path = (path or resolve_config_path()).expanduser()
        self.config = _read(self.path)

    @classmethod
    def load(cls) -> Self:
        """The store of the resolved config path, cached while the file is unchanged."""
        path = resolve_config_path().resolve()
        try:
            info = path.stat()
        except FileNotFoundError:
            store = cls.__new__(cls)
            store.path, store.config = path, RathConfig()
            return store
        key = (info.st_mtime_ns, info.st_size)
        with cls._lock:
            cached = cls._cache.get(path)
            if cached is None or cached[0] != key:
                cached = (key, _read(path))
                cls._cache[path] = cached
        store = cls.__new__(cls)
        store.path, store.config = path, cached[1].model_copy(deep=True)
        return store

    def save(self) -> None:
        """Write the file atomically, mode 600, with ``version`` set and git kept away."""
        directory = self.path.parent
        directory.mkdir(parents=True, exist_ok=True)
        ensure_config_dir_gitignore(directory)
        if is_project_local(directory):
            ensure_project_gitignore_entry(directory.parent)
        self.config.version = SCHEMA_VERSION
        text = json.dumps(self.config.model_dump(mode="json"), indent=2) + "\n"
        handle, temp = tempfile.mkstemp(dir=directory, prefix=".config-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w") as out:
                out.write(text)
            chmod_user_only(Path(temp))
            os.replace(temp, self.path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
        with self._lock:
            self._cache.pop(self.path.resolve(), None)

    def get_llm_provider(self, name: str) -> LLMProviderConfig | None:
        """The LLM provider entry ``name``, or ``None``."""
        return self.config.llm.providers.get(name)

    def find_provider_by_kind(self, kind: str) -> LLMProviderConfig | None:
        """The default provider if it is of ``kind``, else the first entry of that kind."""
        providers = self.config.llm.providers
        default = providers.get(self.config.llm.default_provider or "")
        if default is not None and (default.provider_kind or "openai") == kind:
            return default
        return next((p for p in providers.values() if (p.provider_kind or "openai") == kind), None)

    def missing(
        self, what: str, name: str | None, names: Iterable[str], *, unset: str
    ) -> ConfigEntryNotFoundError:
        """The error for an entry this file lacks, naming the entries it has.

        Args:
            what: The kind of entry (``LLM provider``, ``memory preset``...).
            name: The name asked for; ``None`` when nothing named one.
            names: The entries of that kind.
            unset: What to say instead of a name (``(llm.default_provider is unset)``).
        """
        asked = repr(name) if name else unset
        known = ", ".join(sorted(names)) or "none"
        return ConfigEntryNotFoundError(f"no {what} {asked} in {self.path} (available: {known})")

    def get_memory_provider(self, name: str) -> MemoryProviderConfig | None:
        """The memory preset ``name``, or ``None``."""
        return self.config.memory.providers.get(name)

    def get_mcp_server(self, name: str) -> MCPServerConfig | None:
        """The MCP server ``name``, or ``None``."""
        return self.config.mcp.servers.get(name)

    def enabled_mcp_servers(self) -> dict[str, MCPServerConfig]:
        """The servers named in ``mcp.default_enabled`` (those that exist), in that order."""
        servers = self.config.mcp.servers
        return {n: servers[n] for n in self.config.mcp.default_enabled if n in servers}


def default_store() -> ConfigStore:
    """:meth:`ConfigStore.load`."""
    return ConfigStore.load()


def _read(path: Path) -> RathConfig:
    try:
        text = path.read_text()
    except FileNotFoundError:
        return RathConfig()
    except OSError as exc:
        raise ConfigError(f"cannot read the config file {path}: {exc.strerror}") from None
    if path.resolve() not in ConfigStore._warned:
        ConfigStore._warned.add(path.resolve())
        warn_if_world_readable(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"the config file {path} is not valid JSON: {exc.msg} at line {exc.lineno}, "
            f"column {exc.colno}"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"the config file {path} must hold a JSON object at its top level")
    try:
        return RathConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ConfigError(f"the config file {path} is invalid at {where}: {first['msg']}") from None
