"""OpenRath's ``EmbeddingProvider`` and ``RathOpenAIEmbeddingClient``.

Embeddings called directly from plain Python, with OpenRath's retries. Rath's agents embed
through the memory activities; this is the API OpenRath code calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from rath.config import ConfigStore, LLMProviderConfig, default_store
from rath.llm._direct import require_credentials, retried
from rath.llm._embedding import DEFAULT_EMBEDDING_MODEL
from rath.llm._openai_embedder import OpenAIEmbedder

T = TypeVar("T")

__all__ = ["DEFAULT_EMBEDDING_MODEL", "EmbeddingProvider", "RathOpenAIEmbeddingClient"]


@dataclass(frozen=True, kw_only=True, slots=True)
class EmbeddingProvider:
    """An OpenAI-compatible embeddings endpoint (OpenRath's fields)."""

    model: str
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    dimensions: int | None = None
    retry_max_attempts: int | None = None
    retry_base_seconds: float | None = None

    @classmethod
    def from_config(
        cls, name: str | None = None, *, store: ConfigStore | None = None, **overrides: Any
    ) -> EmbeddingProvider:
        """The embedding provider the config file names (OpenRath's rules).

        That is entry ``name``; else ``llm.embedding_provider`` if that entry exists; else the
        default provider's endpoint and key with the model :data:`DEFAULT_EMBEDDING_MODEL` (a
        chat model cannot embed); else, with nothing configured, that model alone. An entry
        without a model gets :data:`DEFAULT_EMBEDDING_MODEL` too.

        Args:
            name: The ``llm.providers`` entry.
            store: The config to read (default: :func:`rath.config.default_store`).
            **overrides: Fields that win over the entry's.

        Raises:
            ConfigEntryNotFoundError: ``name`` is given and there is no such entry (a
                ``KeyError`` listing the entries).
        """
        store = store or default_store()
        entry, model = _embedding_entry(store, name)
        fields: dict[str, Any] = {"model": model or DEFAULT_EMBEDDING_MODEL}
        if entry is not None:
            fields |= {"base_url": entry.base_url, "api_key": entry.api_key}
        return cls(**(fields | overrides))


def _embedding_entry(
    store: ConfigStore, name: str | None
) -> tuple[LLMProviderConfig | None, str | None]:
    """The entry an embedding provider comes from, and the model it may take from it."""
    llm = store.config.llm
    if name is not None:
        entry = store.find_llm_provider(name)
        if entry is None:
            raise store.missing("embedding provider", name, llm.providers, unset="")
        return entry, entry.model
    entry = store.find_llm_provider(llm.embedding_provider)
    if entry is not None:
        return entry, entry.model
    # The chat default lends its endpoint and key, never its (chat) model.
    return store.find_llm_provider(llm.default_provider), None


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
