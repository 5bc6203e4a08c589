"""The model call of a commit made outside workflows: :mod:`rath.llm`'s chat client, in process.

Inside a workflow the ``rath.memory.commit`` activity calls the model through the worker's
LLM activities (Temporal retries, worker-side credentials). Outside one there is no worker to
ask, so :func:`provider_chat` asks the same chat client directly
(:func:`rath.llm.aio.async_chat_client_for`: every provider kind, and the next key when the endpoint
rejects one), and retries what the client classifies as retryable a few times itself.

The clients are async and :func:`rath.memory.commit` is not, so the calls run on an event loop
of their own, on a thread of their own: a caller that already runs a loop (a notebook, an
async web handler) is blocked, as by any synchronous call, but not refused.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from rath.errors import ConfigError
from rath.llm.aio import AsyncChatClient
from rath.llm.chat_request import RathLLMChatRequest, request_from_openai
from rath.llm.chat_response import RathLLMChatResponse, RathLLMTokenUsage
from rath.llm.errors import ProviderError
from rath.llm.pool import async_chat_client_for
from rath.llm.provider import Provider
from rath.memory._commit import Chat, ChatMessages
from rath.memory.errors import ExtractionError

ATTEMPTS = 3
"""Calls made for one extraction while the endpoint fails retryably (no Temporal retries here)."""

_FIRST_DELAY = 0.5
_MAX_DELAY = 30.0


@contextmanager
def provider_chat(provider: Provider) -> Iterator[Chat]:
    """A :data:`~rath.memory._commit.Chat` calling ``provider``, open for the ``with`` block.

    The key is ``provider.api_key``, else the ones its reference or ``api_key_env`` names
    (default: the kind's variable, ``OPENAI_API_KEY`` or ``ANTHROPIC_API_KEY``), read in this
    process. It never leaves the process.

    Raises:
        ConfigError: The provider is the offline demo model (it cannot extract facts), its kind
            is unknown, or it has no model, or no key and no ``base_url``.
    """
    if provider.provider_kind == "demo":
        raise ConfigError(
            "the offline demo model cannot extract memories: commit with a real provider "
            "(set OPENAI_API_KEY, or Provider(base_url=...) for an OpenAI-compatible server)"
        )
    client = async_chat_client_for(provider)
    options = {k: v for k, v in provider.sampling_options().items() if k != "tool_choice"}
    loop = asyncio.new_event_loop()
    with ThreadPoolExecutor(1, thread_name_prefix="rath-memory-chat") as thread:
        try:

            def chat(messages: ChatMessages) -> tuple[str, RathLLMTokenUsage | None]:
                request = request_from_openai(messages, options=options)
                return thread.submit(loop.run_until_complete, _ask(client, request)).result()

            yield chat
        finally:
            thread.submit(loop.run_until_complete, client.aclose()).result()
            loop.close()


async def _ask(
    client: AsyncChatClient, request: RathLLMChatRequest
) -> tuple[str, RathLLMTokenUsage | None]:
    """The reply's text and usage.

    Raises:
        ProviderError: As :func:`_complete`.
        ExtractionError: The model answered with no text.
    """
    result = await _complete(client, request)
    text = (result.primary_choice.message.content or "").strip()
    if not text:
        raise ExtractionError(
            f"{client.kind} model {client.model!r} sent an empty reply to the memory "
            "extraction prompt"
        )
    return text, result.usage


async def _complete(client: AsyncChatClient, request: RathLLMChatRequest) -> RathLLMChatResponse:
    """One completion, after up to :data:`ATTEMPTS` calls (``Retry-After`` honoured, capped).

    Raises:
        ProviderError: A failure that is not retryable, or the last attempt's.
    """
    for attempt in range(1, ATTEMPTS):
        try:
            return await client.acomplete(request)
        except ProviderError as exc:
            if not exc.retryable:
                raise
            delay = exc.retry_after or _FIRST_DELAY * 2 ** (attempt - 1)
            await asyncio.sleep(min(delay, _MAX_DELAY))
    return await client.acomplete(request)
