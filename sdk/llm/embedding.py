"""Embeddings: the embedder interface (text in, vectors out) and its error; OpenRath's names.

:class:`Embedder` and :class:`EmbeddingError` are public as :class:`rath.memory.Embedder` and
:class:`rath.memory.EmbeddingError` (memory is what embeds); defined here, beside the
providers, so :mod:`rath.llm` never imports memory. OpenRath's ``EmbeddingProvider``,
``RathOpenAIEmbeddingClient`` and ``DEFAULT_EMBEDDING_MODEL`` load on first use (PEP 562)
from :mod:`rath.llm.embedding_provider`, which loads the OpenAI SDK.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from rath.errors import MemoryStoreError
from rath.utils.lazy import lazy_names

_OPENRATH = ("DEFAULT_EMBEDDING_MODEL", "EmbeddingProvider", "RathOpenAIEmbeddingClient")
__getattr__ = lazy_names(__name__, dict.fromkeys(_OPENRATH, "rath.llm.embedding_provider"))


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


class Embedder(Protocol):
    """Anything that turns texts into embedding vectors.

    Implementations: :class:`~rath.memory.OpenAIEmbedder` (any OpenAI-compatible
    ``/embeddings`` endpoint) and :class:`~rath.memory.E5Embedder` (a local model, optional).
    The store keeps vectors per :attr:`model`, so changing the model re-embeds lazily instead
    of comparing vectors from two models.
    """

    @property
    def model(self) -> str:
        """The embedding model's name; vectors from different names are never compared."""
        ...

    def embed(self, texts: Sequence[str], *, query: bool = False) -> list[list[float]]:
        """Embed ``texts``, one vector per text, in order.

        Args:
            texts: The texts to embed.
            query: True when the texts are search queries rather than stored documents.
                Asymmetric models (E5, BGE) embed the two differently; others ignore it.

        Raises:
            EmbeddingError: The embedding backend failed (``retryable`` says whether trying
                again may help).
        """
        ...
