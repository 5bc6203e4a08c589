"""The memory package's errors, placed in Rath's error tree.

::

    UserError
    └── InvalidMemoryError      a malformed request: empty content, bad scope/category, top_k < 1
        └── MemoryURIError      a string that is not a valid ``memory://`` URI
    RunError
    └── MemoryStoreError        (rath.errors) the store or its embedder failed
        ├── EmbeddingError      the embedding endpoint failed (retryable or not, by status)
        └── ExtractionError     a model's fact-extraction reply could not be parsed
"""

from __future__ import annotations

from rath.errors import MemoryStoreError, UserError


class InvalidMemoryError(UserError):
    """A memory request is malformed; retrying it cannot help."""


class MemoryURIError(InvalidMemoryError):
    """A string is not a valid memory URI; the message says which part is wrong."""


class EmbeddingError(MemoryStoreError):
    """The embedding endpoint failed.

    Attributes:
        retryable: True for rate limits, server errors, timeouts and connection failures.
        retry_after: The delay the endpoint asked for (``Retry-After``), in seconds, if any.
    """

    def __init__(
        self, message: str, *, retryable: bool = True, retry_after: float | None = None
    ) -> None:
        super().__init__(message, retryable=retryable)
        self.retry_after = retry_after

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_embedding_error, (str(self), self.retryable, self.retry_after))


def _rebuild_embedding_error(
    message: str, retryable: bool, retry_after: float | None
) -> EmbeddingError:
    return EmbeddingError(message, retryable=retryable, retry_after=retry_after)


class ExtractionError(MemoryStoreError):
    """A model's reply to the fact-extraction prompt is not a JSON list of facts.

    Retryable: a model asked again may answer in the right shape.
    """


__all__ = ["EmbeddingError", "ExtractionError", "InvalidMemoryError", "MemoryURIError"]
