"""OpenRath's ``rath.llm.base``: the chat-client protocols, sync and async (docs/providers.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Protocol, runtime_checkable

from rath.llm.chat_request import RathLLMChatRequest
from rath.llm.chat_response import RathLLMChatResponse, RathLLMStreamDelta
from rath.llm.provider import Provider, ProviderSpec
from rath.llm.stream import Emit

__all__ = [
    "AsyncChatClient",
    "AsyncChatClientFactory",
    "AsyncStreamingChatClient",
    "ChatClient",
    "ChatClientFactory",
    "StreamingChatClient",
]


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


@runtime_checkable
class AsyncChatClient(Protocol):
    """Rath's async chat client (its activities call it).

    It raises only :class:`~rath.llm.ProviderError` (classified: retryable or not) and
    :class:`~rath.errors.ConfigError`, and never retries: Temporal owns retries.
    """

    @property
    def kind(self) -> str:
        """The registered kind that built this client, e.g. ``"anthropic"``."""
        ...

    @property
    def model(self) -> str:
        """The model this client asks for (a request's ``model`` wins)."""
        ...

    async def acomplete(self, req: RathLLMChatRequest) -> RathLLMChatResponse:
        """Run one chat call and return its normalised answer."""
        ...

    async def aclose(self) -> None:
        """Release the client's connections."""
        ...


@runtime_checkable
class AsyncStreamingChatClient(Protocol):
    """An async chat client that streams on its own (optional for registered clients)."""

    async def astream(self, req: RathLLMChatRequest, emit: Emit) -> RathLLMChatResponse:
        """Run one chat call, calling ``emit`` with each delta; return the whole answer."""
        ...


AsyncChatClientFactory = Callable[[ProviderSpec, str | None], AsyncChatClient]
"""Builds a client for a provider and one resolved API key (``None`` when the worker has none)."""
