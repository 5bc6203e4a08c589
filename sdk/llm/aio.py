"""Rath's async chat-client face, for code on an event loop (its activities use it).

:mod:`rath.llm` keeps OpenRath's synchronous names (docs/providers.md, "Custom kinds").
"""

from rath.llm._client import AsyncChatClient, AsyncChatClientFactory, ChatRequest
from rath.llm._wire import Completion
from rath.llm.pool import AsyncStreamingChatClient, async_chat_client_for

__all__ = [
    "AsyncChatClient",
    "AsyncChatClientFactory",
    "AsyncStreamingChatClient",
    "ChatRequest",
    "Completion",
    "async_chat_client_for",
]
