"""``MemoryStoreSpec``: which plane store to open (OpenRath's, with ``from_config``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rath.config import ConfigStore, default_store

__all__ = ["MemoryStoreSpec"]


@dataclass
class MemoryStoreSpec:
    """Which store to open: a namespace, the identities a remote service wants, options.

    ``options`` are the backend's: ``path`` (a local store's directory), ``url``/``api_key``
    (OpenViking), ``embedding``/``embedding_provider`` and ``chat``/``chat_provider``.
    """

    namespace: str | None = None
    account_id: str | None = None
    user_id: str | None = None
    agent_id: str | None = None
    options: Mapping[str, Any] | None = None

    @classmethod
    def from_config(
        cls, name: str | None = None, *, store: ConfigStore | None = None, **overrides: Any
    ) -> MemoryStoreSpec:
        """The spec of the config file's memory preset ``name`` (else its default preset).

        Args:
            name: A ``memory.providers`` entry.
            store: The config to read (default: :func:`rath.config.default_store`).
            **overrides: Spec fields (``namespace``, ``user_id``...) or, for any other key,
                options that win over the preset's.

        Raises:
            ConfigEntryNotFoundError: No such preset (a ``KeyError`` listing the presets).
        """
        store = store or default_store()
        entry = store.get_memory_provider(name)
        options = {
            key: value
            for key, value in {
                "path": entry.path,
                "embedding_provider": entry.embedding_provider,
                "chat_provider": entry.chat_provider,
            }.items()
            if value is not None
        }
        fields = {key: overrides.pop(key) for key in _SPEC_FIELDS if key in overrides}
        return cls(**fields, options=options | overrides)


_SPEC_FIELDS = ("namespace", "account_id", "user_id", "agent_id")
