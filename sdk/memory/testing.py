"""Test doubles for memory: a fake embedding server over the real OpenAI wire protocol."""

from __future__ import annotations

from rath.memory._fake_embedder import (
    FakeEmbeddingServer,
    RecordedEmbeddingRequest,
    trigram_embedding,
)

__all__ = ["FakeEmbeddingServer", "RecordedEmbeddingRequest", "trigram_embedding"]
