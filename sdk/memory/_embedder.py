"""The embedder interface: text in, vectors out, with the model's name."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


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
