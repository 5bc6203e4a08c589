"""OpenRath's ``rath.llm.base``: the synchronous chat-client protocols (docs/providers.md).

A script calls these clients directly (``client.complete(RathLLMChatRequest(...))``), and a
loop executor wraps one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Protocol, runtime_checkable

from rath.llm.chat_request import RathLLMChatRequest
from rath.llm.chat_response import RathLLMChatResponse, RathLLMStreamDelta
from rath.llm.provider import Provider

__all__ = ["ChatClient", "ChatClientFactory", "StreamingChatClient"]


@runtime_checkable
class ChatClient(Protocol):
    """A synchronous chat client: its provider, and one call at a time."""

    @property
    def provider(self) -> Provider:
        """The provider this client calls."""
        ...

    def complete(self, req: RathLLMChatRequest) -> RathLLMChatResponse:
        """Run one chat call and return the whole answer."""
        ...


@runtime_checkable
class StreamingChatClient(ChatClient, Protocol):
    """A synchronous chat client that can also stream."""

    def complete_stream(self, req: RathLLMChatRequest) -> Iterator[RathLLMStreamDelta]:
        """Run one chat call, yielding its deltas as they come."""
        ...


ChatClientFactory = Callable[[Provider], ChatClient]
"""OpenRath's factory: builds a synchronous client for a provider."""
