"""The chunk store: the content-addressed rows and tables of transcripts. See docs/modules.md."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from rath.settings import Settings
from rath.store.catalog import Catalog, SessionRecord
from rath.store.chunk_store import ChunkStore
from rath.store.urls import open_objects, store_url

__all__ = [
    "Catalog",
    "ChunkStore",
    "SessionRecord",
    "check_store",
    "current_catalog",
    "current_store",
    "open_objects",
    "store_at",
    "store_for",
    "store_url",
]


@lru_cache(maxsize=8)
def store_at(location: Path | str) -> ChunkStore:
    """The (cached) chunk store at ``location``: a directory, or a store URL."""
    if isinstance(location, Path):
        return ChunkStore(location)
    return ChunkStore(open_objects(location))


def store_for(settings: Settings) -> ChunkStore:
    """The chunk store ``settings`` name (``RATH_STORE_URL``, else the store directory)."""
    return store_at(settings.store_url) if settings.store_url else store_at(settings.store_dir)


def check_store(settings: Settings) -> None:
    """Fail now, in one line, if the store ``settings`` name cannot be used.

    Raises:
        ConfigError: Naming the store, what is wrong, and the setting to fix.
    """
    store_for(settings).objects.check()


def current_store() -> ChunkStore:
    """The chunk store the current environment points at."""
    return store_for(Settings.from_env())


def current_catalog() -> Catalog:
    """The session catalog of the store the current environment points at."""
    return Catalog(current_store().objects)
