"""The memory package's errors, placed in Rath's error tree.

::

    UserError
    ├── InvalidMemoryError      a malformed request: empty content, bad scope/category, top_k < 1
    │   └── MemoryURIError      a string that is not a valid ``memory://`` URI
    └── MemoryStoreClosed       (also a RuntimeError) a store acquired after its last release
    RunError
    └── MemoryStoreError        (rath.errors) the store or its embedder failed
        ├── EmbeddingError      the embedding endpoint failed (retryable or not, by status;
        │                       defined in rath.llm, beside the embedders)
        └── ExtractionError     a model's fact-extraction reply could not be parsed
"""

from __future__ import annotations

from rath.errors import MemoryStoreError, UserError
from rath.llm._embedder import EmbeddingError


class InvalidMemoryError(UserError):
    """A memory request is malformed; retrying it cannot help."""


class MemoryURIError(InvalidMemoryError):
    """A string is not a valid memory URI; the message says which part is wrong."""


class MemoryStoreClosed(UserError, RuntimeError):
    """A memory store was used after its last reference was released (OpenRath's name)."""


class ExtractionError(MemoryStoreError):
    """A model's reply to the fact-extraction prompt is not a JSON list of facts.

    Retryable: a model asked again may answer in the right shape.
    """


__all__ = [
    "EmbeddingError",
    "ExtractionError",
    "InvalidMemoryError",
    "MemoryStoreClosed",
    "MemoryURIError",
]
