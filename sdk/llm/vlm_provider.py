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
from rath.errors import ConfigEntryNotFoundError
from rath.llm._direct import require_credentials, retried
from rath.llm._vlm import describe_image
from rath.llm.provider import Provider


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
        """The provider of config entry ``name``, else of ``llm.vlm_provider`` (OpenRath's rules).

        There is no fallback to the default (chat) provider, which is rarely a vision model.
        Only the entry's model, endpoint and key are taken; ``max_tokens`` stays 512 and
        ``temperature`` unset unless ``overrides`` set them.

        Args:
            name: The ``llm.providers`` entry.
            store: The config to read (default: :func:`rath.config.default_store`).
            **overrides: Fields that win over the entry's.

        Raises:
            ConfigEntryNotFoundError: No VLM provider is named, there is no such entry, or the
                entry names no model (a vision model has no safe default). A ``KeyError``.
        """
        store = store or default_store()
        chosen = name if name is not None else store.config.llm.vlm_provider
        if not chosen:
            raise store.missing(
                "VLM provider",
                None,
                store.config.llm.providers,
                unset="(llm.vlm_provider is unset)",
            )
        entry = store.get_llm_provider(chosen)
        if not entry.model:
            raise ConfigEntryNotFoundError(
                f"the VLM provider {chosen!r} in {store.path} names no model; set its model "
                "(vision endpoints have no safe default)"
            )
        fields = {"model": entry.model, "base_url": entry.base_url, "api_key": entry.api_key}
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
