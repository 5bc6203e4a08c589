"""Image description: the default prompt, image messages and OpenRath's ``VLMProvider``.

``RathOpenAIVLMClient`` loads on first use from :mod:`rath.llm.openai.vlm` (docs/providers.md).
"""

from __future__ import annotations

import asyncio
import base64
import mimetypes
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rath.config import ConfigStore, default_store
from rath.errors import ConfigEntryNotFoundError, ConfigError
from rath.llm.chat_request import request_from_openai
from rath.llm.errors import ProviderError
from rath.llm.pool import async_chat_client_for
from rath.llm.provider import Provider
from rath.utils.lazy import lazy_names

DEFAULT_IMAGE_PROMPT = "Describe this image."
"""What :func:`rath.llm.describe_image` asks about an image when the caller gives no prompt."""

__getattr__ = lazy_names(__name__, {"RathOpenAIVLMClient": "rath.llm.openai.vlm"})


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
        """The provider of entry ``name``, else of ``llm.vlm_provider`` (OpenRath's rules).

        No fallback to the chat default; only the entry's model, endpoint and key are taken.

        Raises:
            ConfigEntryNotFoundError: No VLM provider named, no such entry, or it names no model.
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


def image_message(
    prompt: str, *, image: bytes | None = None, mime: str = "image/png", url: str | None = None
) -> dict[str, Any]:
    """One user message holding ``prompt`` and the image (bytes, or a URL the model fetches).

    Raises:
        ConfigError: Neither or both of ``image`` and ``url`` are given.
    """
    if (image is None) == (url is None):
        raise ConfigError("give exactly one of image (bytes) and url")
    if image is not None:
        url = f"data:{mime};base64,{base64.b64encode(image).decode('ascii')}"
    return {
        "role": "user",
        "content": [
            {"type": "text", "text": prompt},
            {"type": "image_url", "image_url": {"url": url}},
        ],
    }


def message_for(
    image: bytes | str | os.PathLike[str], *, prompt: str, mime: str | None
) -> dict[str, Any]:
    """The user message for an image given as bytes, a path, or a URL."""
    if isinstance(image, bytes):
        return image_message(prompt, image=image, mime=mime or "image/png")
    if isinstance(image, str) and image.startswith(("http://", "https://", "data:")):
        return image_message(prompt, url=image)
    path = Path(image)
    guessed = mime or mimetypes.guess_type(path.name)[0] or "image/png"
    return image_message(prompt, image=path.read_bytes(), mime=guessed)


def describe_image(
    provider: Provider,
    image: bytes | str | os.PathLike[str],
    *,
    prompt: str = DEFAULT_IMAGE_PROMPT,
    mime: str | None = None,
) -> str:
    """Ask ``provider``'s model about an image (bytes, a path, or a URL): no workflow, no retries.

    Raises:
        ConfigError: Called from a running event loop (use :func:`describe_image_async`).
        ProviderError: The endpoint failed, or answered with no text.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(describe_image_async(provider, image, prompt=prompt, mime=mime))
    raise ConfigError(
        "describe_image() blocks; in async code use `await describe_image_async(...)`"
    )


async def describe_image_async(
    provider: Provider,
    image: bytes | str | os.PathLike[str],
    *,
    prompt: str = DEFAULT_IMAGE_PROMPT,
    mime: str | None = None,
) -> str:
    """:func:`describe_image` for async code."""
    message = message_for(image, prompt=prompt, mime=mime)
    client = async_chat_client_for(provider)
    try:
        options = {k: v for k, v in provider.sampling_options().items() if k != "tool_choice"}
        response = await client.acomplete(request_from_openai([message], options=options))
    finally:
        await client.aclose()
    text = (response.primary_choice.message.content or "").strip()
    if not text:
        raise ProviderError(
            f"{client.kind} model {client.model!r} described the image with no text",
            error_type="LLMEmptyReply",
            retryable=False,
        )
    return text
