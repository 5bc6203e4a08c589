"""OpenRath's module path ``rath.llm.embedding``: the embedding provider and client.

Re-exported from ``rath.llm.embedding_provider``.
"""

from rath.llm.embedding_provider import (
    DEFAULT_EMBEDDING_MODEL,
    EmbeddingProvider,
    RathOpenAIEmbeddingClient,
)

__all__ = ["DEFAULT_EMBEDDING_MODEL", "EmbeddingProvider", "RathOpenAIEmbeddingClient"]
