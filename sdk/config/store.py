"""``ConfigStore``: the config file, read (and cached while it does not change) and saved."""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import ClassVar, TypeVar

from pydantic import ValidationError

from rath.config.paths import (
    SCHEMA_VERSION,
    is_project_local,
    resolve_config_dir,
    resolve_config_path,
)
from rath.config.schema import (
    LLMProviderConfig,
    MCPServerConfig,
    MemoryProviderConfig,
    RathConfig,
)
from rath.config.secrets import (
    chmod_user_only,
    ensure_config_dir_gitignore,
    ensure_project_gitignore_entry,
    warn_if_world_readable,
)
from rath.errors import ConfigEntryNotFoundError, ConfigError

__all__ = ["ConfigError", "ConfigStore", "default_store", "resolve_config_dir"]

_Entry = TypeVar("_Entry")


class ConfigStore:
    """The config file at ``path`` (default: :func:`~rath.config.resolve_config_path`).

    Raises:
        ConfigError: The file is not valid JSON (line and column named), not an object, or
            does not match the schema.
    """

    _cache: ClassVar[dict[Path, tuple[tuple[int, int], ConfigStore]]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, path: Path | None = None) -> None:
        self.path = (path or resolve_config_path()).expanduser()
        self.config = _read(self.path)

    @classmethod
    def load(cls) -> ConfigStore:
        """The store of the resolved config path: the same object while the file is unchanged."""
        path = resolve_config_path().resolve()
        stamp = _stamp(path)
        if stamp is None:
            return cls(path)
        with cls._lock:
            cached = cls._cache.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        # Keyed by the stamp taken before reading: a write racing the read changes the stamp,
        # so the next load() reads again rather than keeping what may be the older content.
        store = cls(path)
        with cls._lock:
            cls._cache[path] = (stamp, store)
        return store

    def save(self) -> None:
        """Write the file atomically, mode 600, with ``version`` set and git kept away."""
        directory = self.path.parent
        directory.mkdir(parents=True, exist_ok=True)
        ensure_config_dir_gitignore(directory)
        if is_project_local(directory):
            ensure_project_gitignore_entry(directory.parent)
        payload = self.config.model_dump(mode="json") | {"version": SCHEMA_VERSION}
        _write_atomically(self.path, json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
        with self._lock:
            self._cache.pop(self.path.resolve(), None)

    def get_llm_provider(self, name: str | None) -> LLMProviderConfig:
        """The LLM provider entry ``name`` (``None``: ``llm.default_provider``).

        Raises:
            ConfigEntryNotFoundError: No name and no default, or no such entry (a ``KeyError``
                listing the entries there are).
        """
        llm = self.config.llm
        chosen = name or llm.default_provider
        if not chosen:
            raise self.missing(
                "LLM provider", None, llm.providers, unset="and no llm.default_provider set"
            )
        return self._entry("LLM provider", llm.providers, chosen)

    def find_provider_by_kind(self, kind: str) -> LLMProviderConfig | None:
        """The default provider if it is of ``kind``, else the first entry of that kind, or None."""
        providers = self.config.llm.providers
        default = providers.get(self.config.llm.default_provider or "")
        if default is not None and (default.provider_kind or "openai") == kind:
            return default
        return next((p for p in providers.values() if (p.provider_kind or "openai") == kind), None)

    def get_memory_provider(self, name: str | None) -> MemoryProviderConfig:
        """The memory preset ``name`` (``None``: ``memory.default_provider``).

        Raises:
            ConfigEntryNotFoundError: No name and no default, or no such preset (a ``KeyError``
                listing the presets there are).
        """
        memory = self.config.memory
        chosen = name or memory.default_provider
        if not chosen:
            raise self.missing(
                "memory provider",
                None,
                memory.providers,
                unset="and no memory.default_provider set",
            )
        return self._entry("memory preset", memory.providers, chosen)

    def get_mcp_server(self, name: str) -> MCPServerConfig:
        """The MCP server ``name``.

        Raises:
            ConfigEntryNotFoundError: No such server (a ``KeyError`` listing the servers).
        """
        return self._entry("MCP server", self.config.mcp.servers, name)

    def enabled_mcp_servers(self) -> list[MCPServerConfig]:
        """The servers named in ``mcp.default_enabled``, in that order.

        Raises:
            ConfigEntryNotFoundError: A name there has no server (a ``KeyError``).
        """
        return [self.get_mcp_server(name) for name in self.config.mcp.default_enabled]

    def missing(
        self, what: str, name: str | None, names: Iterable[str], *, unset: str
    ) -> ConfigEntryNotFoundError:
        """The error for an entry this file lacks, naming the entries it has."""
        asked = repr(name) if name else f"name given {unset}".rstrip()
        known = ", ".join(sorted(names)) or "none"
        return ConfigEntryNotFoundError(f"no {what} {asked} in {self.path} (available: {known})")

    def _entry(self, what: str, entries: Mapping[str, _Entry], name: str) -> _Entry:
        entry = entries.get(name)
        if entry is None:
            raise self.missing(what, name, entries, unset="")
        return entry

    def find_llm_provider(self, name: str | None) -> LLMProviderConfig | None:
        """The LLM provider entry ``name``, or ``None`` (for callers with a fallback)."""
        return self.config.llm.providers.get(name) if name else None


def default_store() -> ConfigStore:
    """:meth:`ConfigStore.load` (OpenRath's built a new store on each call)."""
    return ConfigStore.load()


def _stamp(path: Path) -> tuple[int, int] | None:
    """``(mtime_ns, size)`` of ``path``, or ``None`` if it cannot be read."""
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size)


def _write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to a private temporary file beside ``path``, then rename it over ``path``."""
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".config_", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        chmod_user_only(Path(temp))
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _read(path: Path) -> RathConfig:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return RathConfig()
    except OSError as exc:
        raise ConfigError(f"cannot read the config file {path}: {exc.strerror}") from None
    warn_if_world_readable(path)
    return _parse(path, text)


def _parse(path: Path, text: str) -> RathConfig:
    """The config in ``text``; its errors carry OpenRath's phrases and what to fix."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"the config file {path} is not valid JSON (line {exc.lineno}, col {exc.colno}): "
            f"{exc.msg}; fix it there or delete the file to start from the defaults"
        ) from None  # its cause would quote the file, keys included
    if not isinstance(data, dict):
        raise ConfigError(
            f"the config file {path} must be a JSON object at its top level, got "
            f"{type(data).__name__}"
        )
    try:
        return RathConfig.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"invalid at {'.'.join(str(part) for part in error['loc'])}: {error['msg']}"
            for error in exc.errors()
        )
        raise ConfigError(f"the config file {path} failed schema validation: {problems}") from None
