"""Rath's async chat-client face, for code on an event loop (its activities do).

:mod:`rath.llm` keeps OpenRath's synchronous names (docs/providers.md, "Custom kinds").
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
