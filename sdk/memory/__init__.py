"""Durable agent memory: remember, recall and extract knowledge that outlives a run.

A :class:`MemoryStore` holds memories addressed by ``memory://<scope>/memories/<category>/<id>``
URIs. :class:`LocalMemoryStore` keeps them in a SQLite file under the data dir (see
:func:`default_memory_store`), recalls them by BM25 full-text ranking, and, given an
:class:`Embedder`, by embedding similarity and a hybrid of both. Writes are idempotent, so a
retried activity never stores a memory twice.

Example::

    from rath.memory import default_memory_store

    with default_memory_store() as store:
        store.remember("The user prefers dark mode.", "user", "preferences")
        for hit in store.recall("dark or light theme?"):
            print(hit.score, hit.content)

See ``docs/memory.md`` for the design, the ranking and its measured quality.
"""

from __future__ import annotations

from rath.errors import MemoryStoreError
from rath.memory._defaults import (
    DEFAULT_STORE_NAME,
    StoreFactory,
    default_memory_store,
    local_store_factory,
    memory_dir,
)
from rath.memory._e5 import E5Embedder
from rath.memory._embedder import Embedder
from rath.memory._errors import EmbeddingError, ExtractionError, InvalidMemoryError, MemoryURIError
from rath.memory._extraction import (
    EXTRACTION_PROMPT,
    ExtractedFact,
    build_extraction_messages,
    dedup_facts,
    parse_extracted_facts,
)
from rath.memory._local import LocalMemoryStore
from rath.memory._marker import MEMORY_PREFIX, injected_memory_uris, is_memory_row, memory_row
from rath.memory._openai_embedder import OpenAIEmbedder
from rath.memory._records import MemoryHit, MemoryRecord
from rath.memory._store import MemoryStore, RecallMode
from rath.memory._uri import SCOPES, MemoryURI, format_memory_uri, parse_memory_uri

__all__ = [
    "DEFAULT_STORE_NAME",
    "EXTRACTION_PROMPT",
    "MEMORY_PREFIX",
    "SCOPES",
    "E5Embedder",
    "Embedder",
    "EmbeddingError",
    "ExtractedFact",
    "ExtractionError",
    "InvalidMemoryError",
    "LocalMemoryStore",
    "MemoryHit",
    "MemoryRecord",
    "MemoryStore",
    "MemoryStoreError",
    "MemoryURI",
    "MemoryURIError",
    "OpenAIEmbedder",
    "RecallMode",
    "StoreFactory",
    "build_extraction_messages",
    "dedup_facts",
    "default_memory_store",
    "format_memory_uri",
    "injected_memory_uris",
    "is_memory_row",
    "local_store_factory",
    "memory_dir",
    "memory_row",
    "parse_extracted_facts",
    "parse_memory_uri",
]
