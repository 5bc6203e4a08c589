"""Image understanding through any chat client, directly (the activity does it durably)."""

from __future__ import annotations

import asyncio
import os

from rath.errors import ConfigError
from rath.llm.chat_request import request_from_openai
from rath.llm.errors import ProviderError
from rath.llm.pool import async_chat_client_for
from rath.llm.provider import Provider
from rath.llm.vlm import DEFAULT_IMAGE_PROMPT, message_for


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
