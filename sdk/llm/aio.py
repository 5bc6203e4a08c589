"""Rath's async chat clients, for code that runs on an event loop (its activities do).

OpenRath's public API is synchronous, and so is :mod:`rath.llm`: :class:`rath.llm.ChatClient`
and :func:`rath.llm.chat_client_for`. The async face lives here, apart, as ``grpc.aio`` does:
:class:`AsyncChatClient` (``async complete(ChatRequest) -> Completion``), the streaming kind
:class:`AsyncStreamingChatClient`, the factory form :class:`AsyncChatClientFactory`
(``factory(spec, api_key)``, for :func:`rath.llm.register_chat_client`) and
:func:`async_chat_client_for`. docs/providers.md shows both faces.
"""

from rath.llm._client import AsyncChatClient, ChatRequest
from rath.llm._registry import AsyncChatClientFactory, async_chat_client_for
from rath.llm._stream_clients import AsyncStreamingChatClient
from rath.llm._wire import Completion

__all__ = [
    "AsyncChatClient",
    "AsyncChatClientFactory",
    "AsyncStreamingChatClient",
    "ChatRequest",
    "Completion",
    "async_chat_client_for",
]
