"""The embedder registry: which :class:`~rath.memory.Embedder` serves which provider kind.

Built in: ``"openai"`` (any OpenAI-compatible ``/embeddings`` endpoint), served by
:class:`rath.memory.OpenAIEmbedder`. Anthropic has no embeddings API, so a provider of that
kind is a configuration error here. Like the chat registry, this is global state.
"""

from __future__ import annotations

from collections.abc import Callable

from rath.errors import ConfigError
from rath.llm._openai_embedder import OpenAIEmbedder
from rath.llm.embedding import DEFAULT_EMBEDDING_MODEL, Embedder
from rath.llm.provider import Provider, ProviderSpec, spec_from_provider

EmbedderFactory = Callable[[ProviderSpec], Embedder]
"""Builds an embedder for a provider spec (the embedder reads its own key)."""

_EMBEDDERS: dict[str, EmbedderFactory] = {}


def register_embedder(kind: str, factory: EmbedderFactory) -> None:
    """Serve embeddings for providers of ``kind`` with ``factory`` (replaces a kind)."""
    _EMBEDDERS[kind] = factory


def embedder_for(provider: Provider | ProviderSpec) -> Embedder:
    """An embedder for ``provider`` (its ``model`` is the embedding model).

    Example::

        embedder = embedder_for(Provider(model="text-embedding-3-small"))
        vectors = embedder.embed(["hello"])

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
    """The ``"openai"`` embedder: :class:`rath.memory.OpenAIEmbedder` for the spec.

    Raises:
        ConfigError: The key is not an environment variable (``Provider(api_key=...)``).
    """
    refs = spec.key_refs()
    if any(not ref.startswith("env:") for ref in refs):
        raise ConfigError(
            "embedders read their key from the environment: use Provider(api_key_env='NAME')"
        )
    dimensions = spec.options.get("dimensions")
    return OpenAIEmbedder(
        spec.model or DEFAULT_EMBEDDING_MODEL,
        base_url=spec.base_url,
        api_key_env=refs[0].removeprefix("env:") if refs else "OPENAI_API_KEY",
        dimensions=int(dimensions) if dimensions is not None else None,
        timeout=spec.request_timeout or 60.0,
    )


register_embedder("openai", openai_embedder)
