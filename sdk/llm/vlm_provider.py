"""OpenRath's ``VLMProvider`` and ``RathOpenAIVLMClient``: describing images directly.

Calls :func:`rath.llm.describe_image` (one user message with the prompt and the image as a
data URL) with OpenRath's retries. Rath's agents describe images through an activity.
"""

from __future__ import annotations

import mimetypes
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rath.config import ConfigStore, default_store
from rath.errors import ConfigError
from rath.llm._direct import require_credentials, retried
from rath.llm._provider import Provider
from rath.llm._vlm import describe_image


@dataclass(frozen=True, kw_only=True, slots=True)
class VLMProvider:
    """A vision-capable OpenAI-compatible model (OpenRath's fields)."""

    model: str
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    max_tokens: int | None = 512
    temperature: float | None = None
    retry_max_attempts: int | None = None
    retry_base_seconds: float | None = None

    @classmethod
    def from_config(
        cls, name: str | None = None, *, store: ConfigStore | None = None, **overrides: Any
    ) -> VLMProvider:
        """The provider of config entry ``name``, else of ``llm.vlm_provider``.

        Args:
            name: The ``llm.providers`` entry.
            store: The config to read (default: :func:`rath.config.default_store`).
            **overrides: Fields that win over the entry's.

        Raises:
            ConfigEntryNotFoundError: No such entry (a ``KeyError`` listing the entries).
            ConfigError: The entry names no model.
        """
        store = store or default_store()
        chosen = name or store.config.llm.vlm_provider
        entry = store.get_llm_provider(chosen) if chosen else None
        if entry is None:
            raise store.missing(
                "VLM provider",
                chosen,
                store.config.llm.providers,
                unset="(llm.vlm_provider is unset)",
            )
        if not entry.model and "model" not in overrides:
            raise ConfigError(f"the VLM provider {chosen!r} in {store.path} names no model")
        fields: dict[str, Any] = {
            "model": entry.model,
            "base_url": entry.base_url,
            "api_key": entry.api_key,
            "temperature": entry.temperature,
        }
        if entry.max_tokens is not None:
            fields["max_tokens"] = entry.max_tokens
        return cls(**(fields | overrides))


class RathOpenAIVLMClient:
    """Describes images with a :class:`VLMProvider`.

    Raises:
        ConfigError: No key (provider or ``OPENAI_API_KEY``) and no server to send none to.
    """

    def __init__(self, provider: VLMProvider) -> None:
        require_credentials("the VLM", provider.api_key, provider.base_url, "OPENAI")
        self.provider = provider
        self._chat = Provider(
            model=provider.model,
            base_url=provider.base_url,
            api_key=provider.api_key,
            provider_kind="openai",
            max_tokens=provider.max_tokens,
            temperature=provider.temperature,
        )

    def describe(self, image_bytes: bytes, *, prompt: str, mime: str = "image/png") -> str:
        """The model's answer to ``prompt`` about the image.

        Raises:
            ProviderError: The endpoint failed (after the retries a retryable failure gets),
                or answered with no text.
        """
        return retried(
            self.provider,
            lambda: describe_image(self._chat, image_bytes, prompt=prompt, mime=mime),
        )

    def describe_path(self, path: str | os.PathLike[str], *, prompt: str) -> str:
        """:meth:`describe` of an image file (its type guessed from the extension)."""
        mime = mimetypes.guess_type(str(path))[0] or "image/png"
        return self.describe(Path(path).read_bytes(), prompt=prompt, mime=mime)
