"""OpenAI-compatible embeddings over the official SDK (docs/memory.md).

``OpenAIEmbedder`` never retries (durable use); OpenRath's ``RathOpenAIEmbeddingClient`` does.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import openai

from rath.errors import ConfigError
from rath.llm.clients.http import error_message, retry_after_seconds
from rath.llm.clients.sdk import require_credentials, retried
from rath.llm.embedding import EmbeddingError, EmbeddingProvider

__all__ = ["OpenAIEmbedder", "RathOpenAIEmbeddingClient"]


# Statuses worth retrying besides 5xx: timeout, conflict, too early, rate limited.
_RETRYABLE_STATUS = frozenset({408, 409, 425, 429})


class OpenAIEmbedder:
    """Embeds texts with an OpenAI-compatible ``POST /embeddings`` endpoint (docs/memory.md).

    Never retrying (Temporal owns retries); each failure is one :class:`EmbeddingError` saying
    whether a retry may help. The key is read from ``api_key_env`` on first use, on the process
    that embeds (a direct ``api_key`` wins; with a ``base_url`` and no key a placeholder goes).
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        dimensions: int | None = None,
        timeout: float = 60.0,
        batch_size: int = 128,
        api_key: str | None = None,
    ) -> None:
        if not model:
            raise ConfigError("OpenAIEmbedder needs a model name, e.g. 'text-embedding-3-small'")
        if batch_size < 1:
            raise ConfigError(f"OpenAIEmbedder batch_size must be at least 1, got {batch_size}")
        self._model = model
        self._base_url = base_url
        self._api_key_env = api_key_env
        self._dimensions = dimensions
        self._timeout = timeout
        self._batch_size = batch_size
        self._client: openai.OpenAI | None = None
        self._given_key = api_key
        self._key: str | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        where = self._base_url or "default endpoint"
        return f"OpenAIEmbedder(model={self._model!r}, {where})"

    @property
    def model(self) -> str:
        """The embedding model's name."""
        return self._model

    @property
    def base_url(self) -> str | None:
        """The endpoint given, or ``None`` for ``$OPENAI_BASE_URL`` or OpenAI's."""
        return self._base_url

    @property
    def api_key_env(self) -> str:
        """The environment variable the key is read from."""
        return self._api_key_env

    @property
    def dimensions(self) -> int | None:
        """The vector size asked for, if any."""
        return self._dimensions

    @property
    def timeout(self) -> float:
        """The per-request timeout, in seconds."""
        return self._timeout

    def embed(self, texts: Sequence[str], *, query: bool = False) -> list[list[float]]:
        """Embed ``texts`` (``query`` is ignored: OpenAI's models are symmetric).

        Raises:
            ConfigError: No API key and no ``base_url``.
            EmbeddingError: The endpoint failed or sent the wrong number of vectors.
        """
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            vectors.extend(self._embed_batch(list(texts[start : start + self._batch_size])))
        return vectors

    def close(self) -> None:
        """Close the HTTP client (idempotent)."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        client = self._client_or_new()
        options: dict[str, Any] = {}
        if self._dimensions is not None:
            options["dimensions"] = self._dimensions
        where = self._base_url or os.environ.get("OPENAI_BASE_URL") or "OpenAI"
        try:
            response = client.embeddings.create(
                model=self._model, input=texts, encoding_format="float", **options
            )
        except openai.APIStatusError as exc:
            status = exc.status_code
            text = (
                f"{where} answered HTTP {status} for embedding model {self._model!r}: "
                f"{self._redact(error_message(exc))}"
            )
            retryable = status in _RETRYABLE_STATUS or status >= 500
            raise EmbeddingError(
                text, retryable=retryable, retry_after=retry_after_seconds(exc.response)
            ) from None
        except openai.APITimeoutError:
            raise EmbeddingError(f"{where} timed out embedding {len(texts)} text(s)") from None
        except openai.APIConnectionError as exc:
            reason = self._redact(str(exc.__cause__ or exc))
            raise EmbeddingError(f"cannot reach {where}: {reason}") from None
        except (openai.APIResponseValidationError, ValueError) as exc:
            raise EmbeddingError(
                f"{where} sent a malformed embeddings response: {type(exc).__name__}"
            ) from None
        data = sorted(response.data, key=lambda item: item.index)
        if len(data) != len(texts):
            raise EmbeddingError(
                f"{where} returned {len(data)} embedding(s) for {len(texts)} input(s)"
            )
        return [[float(value) for value in item.embedding] for item in data]

    def _client_or_new(self) -> openai.OpenAI:
        with self._lock:
            if self._client is None:
                base_url = self._base_url or os.environ.get("OPENAI_BASE_URL") or None
                key = self._given_key or os.environ.get(self._api_key_env) or None
                if key is None:
                    if base_url is None:
                        raise ConfigError(
                            f"no API key for embeddings: set {self._api_key_env} in this "
                            "process's environment, or point OpenAIEmbedder(base_url=...) at "
                            "an OpenAI-compatible server"
                        )
                    key = "unused"  # local servers ignore the key; the SDK requires one
                self._key = key
                self._client = openai.OpenAI(
                    api_key=key, base_url=base_url, max_retries=0, timeout=self._timeout
                )
            return self._client

    def _redact(self, text: str) -> str:
        key = self._key
        if key and len(key) >= 8 and key in text:
            text = text.replace(key, "[redacted]")
        return text


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
