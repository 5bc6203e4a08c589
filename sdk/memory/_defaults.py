"""Where memory lives by default: ``<RATH_HOME>/memory/``, one SQLite file per store name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rath._runtime.settings import Settings
from rath.memory._embedder import Embedder
from rath.memory._local import LocalMemoryStore
from rath.memory._store import MemoryStore
from rath.memory._uri import check_segment

DEFAULT_STORE_NAME = "default"
"""The store name that maps to ``memory.db``; other names map to ``<name>.db``."""

StoreFactory = Callable[[str], MemoryStore]
"""Opens the memory store a name refers to (what :class:`MemoryActivities` is given)."""


def memory_dir(settings: Settings | None = None) -> Path:
    """The directory holding local memory stores: ``<RATH_HOME>/memory``."""
    return (settings or Settings.from_env()).home / "memory"


def default_memory_store(
    *, embedder: Embedder | None = None, settings: Settings | None = None
) -> LocalMemoryStore:
    """Open the default local store, ``<RATH_HOME>/memory/memory.db``.

    Every process with the same ``RATH_HOME`` opens the same file, so what one run remembers,
    the next recalls.

    Args:
        embedder: Enables embedding and hybrid recall.
        settings: Where the data dir is (read from the environment by default).
    """
    return LocalMemoryStore(memory_dir(settings) / "memory.db", embedder=embedder)


def local_store_factory(
    *, directory: Path | None = None, embedder: Embedder | None = None
) -> StoreFactory:
    """A factory opening named local stores: ``default`` is ``memory.db``, ``x`` is ``x.db``.

    Args:
        directory: Where the files are (default: :func:`memory_dir` when a store is opened).
        embedder: Given to every store the factory opens.

    Returns:
        A function from store name to a new :class:`LocalMemoryStore`.
    """

    def open_store(name: str) -> MemoryStore:
        check_segment("store name", name)
        folder = directory if directory is not None else memory_dir()
        filename = "memory.db" if name == DEFAULT_STORE_NAME else f"{name}.db"
        return LocalMemoryStore(folder / filename, embedder=embedder)

    return open_store
