"""OpenRath's ``RathOpenAIVLMClient``: describing images directly, with OpenRath's retries.

One user message with the prompt and the image as a data URL (:func:`rath.llm.describe_image`);
Rath's agents describe images through an activity instead.
"""

from __future__ import annotations

import mimetypes
import os
from pathlib import Path

from rath.llm.clients.sdk import require_credentials, retried
from rath.llm.provider import Provider
from rath.llm.vlm import VLMProvider, describe_image

__all__ = ["RathOpenAIVLMClient"]


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
