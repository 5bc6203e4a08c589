"""Rath's async chat-client face, for code on an event loop (its activities use it).

:mod:`rath.llm` keeps OpenRath's synchronous names (docs/providers.md, "Custom kinds").
"""

from rath.llm.base import AsyncChatClient, AsyncChatClientFactory, AsyncStreamingChatClient
from rath.llm.pool import async_chat_client_for

__all__ = [
    "AsyncChatClient",
    "AsyncChatClientFactory",
    "AsyncStreamingChatClient",
    "async_chat_client_for",
]
