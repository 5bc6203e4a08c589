"""Where memory lives by default, ``<RATH_HOME>/memory/``, and opening the store a spec names."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rath.llm.embedding import Embedder
from rath.memory._plane_spec import open_described
from rath.memory._spec import DEFAULT_STORE_NAME, MemorySpec, build_embedder
from rath.memory.abc import MemoryStore, MemoryStoreSpec
from rath.memory.registry import get
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
    return _sqlite(memory_dir(settings) / "memory.db", embedder, 0.0)


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
    embedder = build_embedder(spec.embedding) if spec.embedding is not None else None
    return _sqlite(memory_path(spec, directory=directory), embedder, spec.min_similarity)


def local_store_factory(*, directory: Path | None = None) -> StoreFactory:
    """A :data:`StoreFactory` for a worker: :func:`open_memory_store` with a fixed directory.

    Args:
        directory: Where named stores live (default: ``<RATH_HOME>/memory``, read from the
            environment each time a store is opened).
    """

    def open_store(spec: MemorySpec) -> MemoryStore:
        return open_memory_store(spec, directory=directory)

    return open_store


def _sqlite(path: Path, embedder: Embedder | None, min_similarity: float) -> MemoryStore:
    options = {"path": str(path), "embedder": embedder, "min_similarity": min_similarity}
    return get("sqlite").open(MemoryStoreSpec(options=options))
