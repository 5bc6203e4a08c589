"""Describe a memory store for a worker (:class:`MemorySpec`) and open it there.

The one way a store crosses Temporal: ``memory_spec`` describes what ``Agent(memory=...)``
takes, ``open_memory_store`` opens it on the worker (docs/memory.md, "Specs").
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from rath.errors import ConfigError
from rath.llm.credentials import VAULT
from rath.llm.embedding import Embedder
from rath.memory.abc import MemoryStore, MemoryStoreSpec
from rath.memory.registry import current, get
from rath.memory.spec import DEFAULT_STORE_NAME, BackendStoreSpec, EmbeddingSpec, MemorySpec
from rath.settings import Settings

StoreFactory = Callable[[MemorySpec], MemoryStore]
"""Opens the store a :class:`MemorySpec` describes (what :class:`MemoryActivities` is given)."""


def memory_dir(settings: Settings | None = None) -> Path:
    """The directory holding local memory stores: ``<RATH_HOME>/memory``."""
    return (settings or Settings.from_env()).home / "memory"


def default_memory_store(
    *, embedder: Embedder | None = None, settings: Settings | None = None
) -> MemoryStore:
    """Open the default local store, ``<RATH_HOME>/memory/memory.db``.

    Every process with the same ``RATH_HOME`` opens the same file, so what one run remembers,
    the next recalls.

    Args:
        embedder: Enables embedding and hybrid recall.
        settings: Where the data dir is (read from the environment by default).
    """
    return _sqlite(memory_dir(settings) / "memory.db", 0.0, embedder=embedder)


def memory_path(spec: MemorySpec, *, directory: Path | None = None) -> Path:
    """The database file of a ``local`` spec: its ``path``, else ``<directory>/<store>.db``.

    Args:
        spec: The spec.
        directory: Where named stores live (default: :func:`memory_dir`).
    """
    if spec.path is not None:
        return Path(spec.path)
    folder = directory if directory is not None else memory_dir()
    return folder / ("memory.db" if spec.store == DEFAULT_STORE_NAME else f"{spec.store}.db")


def open_memory_store(
    spec: MemorySpec | None = None, *, directory: Path | None = None
) -> MemoryStore:
    """Open the store ``spec`` describes (the default local store when ``None``).

    This is the one place a spec's ``kind`` picks a backend: ``local`` is Rath's SQLite
    store, ``backend`` a store of the memory plane (OpenViking, OpenRath's file store).

    Args:
        spec: The store's description.
        directory: Where named local stores live (default: ``<RATH_HOME>/memory``).

    Raises:
        MemoryStoreError: The store cannot be opened.
        ConfigError: The spec's embedder is misconfigured.
    """
    spec = spec or MemorySpec()
    if spec.kind == "backend" and spec.backend is not None:
        return open_described(spec.backend)
    return _sqlite(
        memory_path(spec, directory=directory), spec.min_similarity, embedding=spec.embedding
    )


def local_store_factory(*, directory: Path | None = None) -> StoreFactory:
    """A :data:`StoreFactory` for a worker: :func:`open_memory_store` with a fixed directory.

    Args:
        directory: Where named stores live (default: ``<RATH_HOME>/memory``, read from the
            environment each time a store is opened).
    """

    def open_store(spec: MemorySpec) -> MemoryStore:
        return open_memory_store(spec, directory=directory)

    return open_store


def _sqlite(
    path: Path,
    min_similarity: float,
    *,
    embedder: Embedder | None = None,
    embedding: EmbeddingSpec | None = None,
) -> MemoryStore:
    options = {
        "path": str(path),
        "embedder": embedder,
        "embedding": embedding,
        "min_similarity": min_similarity,
    }
    return get("sqlite").open(MemoryStoreSpec(options=options))


def memory_spec(memory: object) -> MemorySpec | None:
    """The spec for an ``Agent(memory=...)`` argument.

    Args:
        memory: ``None`` (no memory); ``"local"`` (the default store under the data dir);
            ``"local:<name>"`` (a named store there); a :class:`MemorySpec`; or a
            :class:`~rath.memory.LocalMemoryStore` (its file and embedder are described); or
            a store a memory backend opened (its backend, identities and options are).

    Returns:
        The spec, or ``None`` for ``None``.

    Raises:
        ConfigError: Anything else, including store objects of other classes and embedders
            that cannot be described (the message says what to pass instead).
    """
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
