"""Describe a memory store for a worker (:class:`MemorySpec`) and open it there.

The one way a store crosses Temporal (docs/memory.md, "Naming a store: MemorySpec").
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path

from rath.errors import ConfigError
from rath.llm.credentials import VAULT
from rath.llm.embedding import Embedder
from rath.memory.abc import _SPEC_FIELDS, MemoryStore, MemoryStoreSpec
from rath.memory.registry import current, get
from rath.memory.spec import DEFAULT_STORE_NAME, BackendStoreSpec, EmbeddingSpec, MemorySpec
from rath.settings import Settings

StoreFactory = Callable[[MemorySpec], MemoryStore]
"""Opens the store a :class:`MemorySpec` describes (what :class:`MemoryActivities` is given)."""
_PLAIN = (str, int, float, bool, type(None))


def memory_dir(settings: Settings | None = None) -> Path:
    """The directory holding local memory stores: ``<RATH_HOME>/memory``."""
    return (settings or Settings.from_env()).home / "memory"


def default_memory_store(
    *, embedder: Embedder | None = None, settings: Settings | None = None
) -> MemoryStore:
    """Open ``<RATH_HOME>/memory/memory.db``, the same file in every process of that data dir."""
    return _sqlite(memory_dir(settings) / "memory.db", embedder, 0.0)


def memory_path(spec: MemorySpec, *, directory: Path | None = None) -> Path:
    """A ``local`` spec's file: its ``path``, else ``<directory or memory_dir()>/<store>.db``."""
    if spec.path is not None:
        return Path(spec.path)
    folder = directory if directory is not None else memory_dir()
    return folder / ("memory.db" if spec.store == DEFAULT_STORE_NAME else f"{spec.store}.db")


def open_memory_store(
    spec: MemorySpec | None = None, *, directory: Path | None = None
) -> MemoryStore:
    """Open the store ``spec`` describes (default: the local store; named ones in ``directory``)."""
    spec = spec or MemorySpec()
    if spec.kind == "backend" and spec.backend is not None:
        return open_described(spec.backend)
    path = memory_path(spec, directory=directory)
    return _sqlite(path, spec.embedding, spec.min_similarity)


def local_store_factory(*, directory: Path | None = None) -> StoreFactory:
    """A worker's :data:`StoreFactory`: :func:`open_memory_store` with a fixed ``directory``."""
    return functools.partial(open_memory_store, directory=directory)


def _sqlite(path: Path, embedder: Embedder | EmbeddingSpec | None, threshold: float) -> MemoryStore:
    options = {"path": str(path), "embedder": embedder, "min_similarity": threshold}
    return get("sqlite").open(MemoryStoreSpec(options=options))


def memory_spec(memory: object) -> MemorySpec | None:
    """The spec for an ``Agent(memory=...)`` argument (``ConfigError`` saying what to pass)."""
    if memory is None or isinstance(memory, MemorySpec):
        return memory
    if isinstance(memory, str):
        kind, _, name = memory.partition(":")
        if kind == "local":
            return MemorySpec(store=name) if name else MemorySpec()
        raise ConfigError(
            f"memory={memory!r} names no store: use memory='local' (or 'local:<name>'), a "
            "MemorySpec, a memory store, or open a backend's store first "
            "(rath.memory.get(name).open(spec))"
        )
    if isinstance(memory, MemoryStore):
        return memory.backend.describe(memory) or describe_store(memory)
    raise ConfigError(
        f"memory must be None, 'local', 'local:<name>', a MemorySpec or a LocalMemoryStore, "
        f"not {type(memory).__name__}"
    )


def describe_store(store: MemoryStore) -> MemorySpec:
    """The spec of an open plane store (``ConfigError`` for an option that is an object)."""
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
    ids = {key: getattr(spec, key) for key in _SPEC_FIELDS}
    described = BackendStoreSpec(name=store.backend.name, options=options, **ids)
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
    fields = described.model_dump(include=set(_SPEC_FIELDS))
    return get(described.name).open(MemoryStoreSpec(**fields, options=options))


def open_plane_store(memory: str | MemoryStoreSpec) -> MemoryStore:
    """OpenRath's ``Agent(memory=...)``: a preset, else a backend's new store; a spec: default."""
    if isinstance(memory, MemoryStoreSpec):
        return current().open(memory)
    try:
        preset = MemoryStoreSpec.from_config(memory)
    except KeyError:
        return get(memory).open()
    return get("local").open(preset)
