"""Plane stores across Temporal: a :class:`MemoryStore` as a spec, and back.

An agent given a plane store (``Agent(memory=rath.memory.get("openviking").open(spec))``)
runs durably: its spec names the backend, the identities and plain options, and the worker
opens the same store. A local file store is described by its directory. A key never travels:
it becomes a reference the worker resolves (an in-process key reaches only the embedded
worker; remote workers read ``options["api_key_env"]``).
"""

from __future__ import annotations

import os

from rath.errors import ConfigError
from rath.llm.credentials import VAULT
from rath.memory.abc import MemoryStore, MemoryStoreSpec
from rath.memory.registry import current, get
from rath.memory.spec import BackendStoreSpec, MemorySpec

__all__ = ["describe_store", "open_described", "open_plane_store"]

_PLAIN = (str, int, float, bool, type(None))


def describe_store(store: MemoryStore) -> MemorySpec:
    """The spec of an open plane store.

    Raises:
        ConfigError: An option that is not a plain value (a client object): name a config
            entry instead (``embedding_provider``, ``chat_provider``).
    """
    spec = store.spec or MemoryStoreSpec()
    options: dict[str, str | int | float | bool | None] = {}
    for key, value in (spec.options or {}).items():
        if key == "api_key" and value:
            options["api_key_ref"] = VAULT.register(str(value))
        elif isinstance(value, _PLAIN):
            options[key] = value
        else:
            raise ConfigError(
                f"memory store option {key!r} ({type(value).__name__}) cannot be described to "
                "a worker: use a config entry name instead (embedding_provider, chat_provider)"
            )
    if store.backend.name == "local":
        options["path"] = store.handle
    described = BackendStoreSpec(
        name=store.backend.name,
        namespace=spec.namespace,
        account_id=spec.account_id,
        user_id=spec.user_id,
        agent_id=spec.agent_id,
        options=options,
    )
    return MemorySpec(kind="backend", backend=described)


def open_described(described: BackendStoreSpec) -> MemoryStore:
    """Open the store a :class:`BackendStoreSpec` describes (on a worker)."""
    options: dict[str, object] = dict(described.options)
    ref = options.pop("api_key_ref", None)
    env = options.pop("api_key_env", None)
    if ref is not None:
        options["api_key"] = VAULT.resolve(str(ref), default_env=str(env or ""))
    elif env:
        options["api_key"] = os.environ.get(str(env))
    spec = MemoryStoreSpec(
        namespace=described.namespace,
        account_id=described.account_id,
        user_id=described.user_id,
        agent_id=described.agent_id,
        options=options,
    )
    return get(described.name).open(spec)


def open_plane_store(memory: str | MemoryStoreSpec) -> MemoryStore:
    """OpenRath's ``Agent(memory=...)`` for a name or a spec.

    A name is a config ``memory.providers`` preset, else a registered backend (a new store);
    a :class:`MemoryStoreSpec` opens on the default backend.

    Raises:
        MemoryBackendNotFound: Neither a preset nor a backend (the message lists backends).
    """
    if isinstance(memory, MemoryStoreSpec):
        return current().open(memory)
    try:
        preset = MemoryStoreSpec.from_config(memory)
    except KeyError:
        return get(memory).open()
    return get("local").open(preset)
