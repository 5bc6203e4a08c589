"""Embeddings: the ``Embedder`` interface, its error, the embedder registry, ``EmbeddingProvider``.

docs/memory.md, "Embedding and hybrid recall".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from rath.config import ConfigStore, LLMProviderConfig, default_store
from rath.errors import ConfigError, MemoryStoreError
from rath.llm.provider import Provider, ProviderSpec, spec_from_provider
from rath.utils.lazy import lazy_names
from rath.utils.targets import import_target

__getattr__ = lazy_names(__name__, {"RathOpenAIEmbeddingClient": "rath.llm.openai.embedding"})

DEFAULT_EMBEDDING_MODEL = "text-embedding-3-small"
"""The model an embedding provider without one uses (OpenRath's default)."""


class EmbeddingError(MemoryStoreError):
    """The embedding endpoint failed (``retryable``; ``retry_after`` in seconds, if asked for)."""

    def __init__(
        self, message: str, *, retryable: bool = True, retry_after: float | None = None
    ) -> None:
        super().__init__(message, retryable=retryable)
        self.retry_after = retry_after


class Embedder(Protocol):
    """Anything that turns texts into embedding vectors (vectors are kept per :attr:`model`)."""

    @property
    def model(self) -> str:
        """The embedding model's name; vectors from different names are never compared."""
        ...

    def embed(self, texts: Sequence[str], *, query: bool = False) -> list[list[float]]:
        """Embed ``texts``, one vector each, in order; ``query`` marks search queries (E5, BGE).

        Raises:
            EmbeddingError: The backend failed (``retryable`` says whether trying again may help).
        """
        ...


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
        """The embedding provider the config file names (OpenRath's rules, docs/memory.md).

        Entry ``name``; else ``llm.embedding_provider``; else the default provider's endpoint
        and key with :data:`DEFAULT_EMBEDDING_MODEL`; ``overrides`` win.

        Raises:
            ConfigEntryNotFoundError: ``name`` is given and there is no such entry.
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


EmbedderFactory = Callable[[ProviderSpec], Embedder]
"""Builds an embedder for a provider spec (the embedder reads its own key)."""

_EMBEDDERS: dict[str, EmbedderFactory] = {}


def register_embedder(kind: str, factory: EmbedderFactory) -> None:
    """Serve embeddings for providers of ``kind`` with ``factory`` (replaces a kind)."""
    _EMBEDDERS[kind] = factory


def embedder_for(provider: Provider | ProviderSpec) -> Embedder:
    """An embedder for ``provider`` (its ``model`` is the embedding model).

    Raises:
        ConfigError: The kind has no embedder, or the key is not an environment variable.
    """
    spec = (
        provider
        if isinstance(provider, ProviderSpec)
        else spec_from_provider(provider, demo_fallback=False)
    )
    factory = _EMBEDDERS.get(spec.kind)
    if factory is None:
        raise ConfigError(
            f"no embedder for provider kind {spec.kind!r}; embedders exist for: "
            f"{', '.join(sorted(_EMBEDDERS))} (see rath.llm.register_embedder)"
        )
    return factory(spec)


def openai_embedder(spec: ProviderSpec) -> Embedder:
    """The ``"openai"`` embedder for a spec (its key must be an environment variable)."""
    refs = spec.key_refs()
    if any(not ref.startswith("env:") for ref in refs):
        raise ConfigError(
            "embedders read their key from the environment: use Provider(api_key_env='NAME')"
        )
    dimensions = spec.options.get("dimensions")
    # The SDK loads when an embedder is first made, not with these values.
    embedder: Embedder = import_target("rath.llm.openai.embedding:OpenAIEmbedder")(
        spec.model or DEFAULT_EMBEDDING_MODEL,
        base_url=spec.base_url,
        api_key_env=refs[0].removeprefix("env:") if refs else "OPENAI_API_KEY",
        dimensions=int(dimensions) if dimensions is not None else None,
        timeout=spec.request_timeout or 60.0,
    )
    return embedder


register_embedder("openai", openai_embedder)
