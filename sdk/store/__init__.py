"""The chunk store: content-addressed rows and table nodes that transcripts are made of.

Workflow history holds only references (:class:`~rath.session.TableRef`); the rows live here,
shared by the client and every worker.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from rath.settings import Settings
from rath.store.catalog import Catalog, SessionRecord
from rath.store.chunk_store import ChunkStore

__all__ = ["Catalog", "ChunkStore", "SessionRecord", "current_catalog", "current_store", "store_at"]


@lru_cache(maxsize=8)
def store_at(path: Path) -> ChunkStore:
    """The (cached) chunk store rooted at ``path``."""
    return ChunkStore(path)


def current_store() -> ChunkStore:
    """The chunk store the current environment points at."""
    return store_at(Settings.from_env().store_dir)


def current_catalog() -> Catalog:
    """The session catalog of the store the current environment points at."""
    return Catalog(current_store().objects)
