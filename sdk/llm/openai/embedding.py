"""OpenRath's ``RathOpenAIEmbeddingClient``: embeddings from plain Python, with OpenRath's retries.

Rath's agents embed through the memory activities instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from rath.llm._sdk_client import require_credentials, retried
from rath.llm.embedding import EmbeddingProvider
from rath.llm.openai_embedder import OpenAIEmbedder

__all__ = ["OpenAIEmbedder", "RathOpenAIEmbeddingClient"]


class RathOpenAIEmbeddingClient:
    """Embeds texts with an :class:`EmbeddingProvider`.

    The key is the provider's, else ``OPENAI_API_KEY``; a server named by ``base_url`` (or
    ``OPENAI_BASE_URL``) needs none.

    Raises:
        ConfigError: No key and no server to send none to (a ``ValueError``, as in OpenRath).
    """

    def __init__(self, provider: EmbeddingProvider) -> None:
        require_credentials("embeddings", provider.api_key, provider.base_url, "OPENAI")
        self.provider = provider
        self._embedder = OpenAIEmbedder(
            provider.model,
            base_url=provider.base_url,
            api_key=provider.api_key,
            dimensions=provider.dimensions,
        )

    def embed(self, texts: Sequence[str]) -> tuple[tuple[float, ...], ...]:
        """One vector per text, in order (no request for no texts).

        Raises:
            EmbeddingError: The endpoint failed, after the retries a retryable failure gets.
        """
        if not texts:
            return ()
        vectors = retried(self.provider, lambda: self._embedder.embed(list(texts)))
        return tuple(tuple(vector) for vector in vectors)

    def embed_one(self, text: str) -> tuple[float, ...]:
        """The vector of one text."""
        return self.embed([text])[0]

    def close(self) -> None:
        """Close the HTTP client (idempotent)."""
        self._embedder.close()
