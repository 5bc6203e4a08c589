"""OpenRath's ``rath.llm.registry``: the synchronous chat-client protocols and ``chat_client_for``.

These are the clients a script calls directly (``client.complete(RathLLMChatRequest(...))``
returns a ``RathLLMChatResponse``), and what a loop executor wraps. Rath's durable runs use
the async clients of :func:`rath.llm.aio.async_chat_client_for` in their activities instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Protocol, runtime_checkable

from rath.errors import ConfigError
from rath.llm._registry import register_chat_client, registered_kinds, sync_factory
from rath.llm._stream import RathLLMStreamDelta
from rath.llm.anthropic import RathAnthropicChatClient
from rath.llm.chat_request import RathLLMChatRequest
from rath.llm.chat_response import RathLLMChatResponse
from rath.llm.openai import RathOpenAIChatClient
from rath.llm.provider import Provider

__all__ = [
    "ChatClient",
    "ChatClientFactory",
    "StreamingChatClient",
    "chat_client_for",
    "register_chat_client",
    "registered_kinds",
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

_BUILT_IN: dict[str, ChatClientFactory] = {
    "openai": RathOpenAIChatClient,
    "anthropic": RathAnthropicChatClient,
}


def chat_client_for(provider: Provider) -> ChatClient:
    """A synchronous client for ``provider``'s kind (``provider_kind``, else ``"openai"``).

    ``"openai"`` (any OpenAI-compatible server) and ``"anthropic"`` are built in; a kind
    registered with OpenRath's ``register_chat_client(kind, factory(provider))`` gets its
    factory's client.

    Raises:
        ConfigError: The kind is unknown, or registered only with Rath's async
            ``factory(spec, api_key)`` (a ``ValueError``). ``ValueError`` too when the built-in
            clients find no API key.
    """
    kind = provider.provider_kind or "openai"
    factory = sync_factory(kind) or _BUILT_IN.get(kind)
    if factory is not None:
        return factory(provider)
    if kind in registered_kinds():
        raise ConfigError(
            f"provider kind {kind!r} has an async client only (registered with "
            "factory(spec, api_key)): use rath.llm.aio.async_chat_client_for(provider), or "
            f"register_chat_client({kind!r}, factory) with a factory(provider) of a "
            "synchronous client"
        )
    raise ConfigError(
        f"unknown provider_kind={kind!r}; registered kinds: {', '.join(registered_kinds())} "
        "(see rath.llm.register_chat_client)"
    )


def cannot_stream(provider: Provider) -> TypeError | None:
    """The ``TypeError`` of ``on_event`` with ``provider``'s kind, if its client cannot stream.

    Only a kind registered with OpenRath's ``factory(provider)`` may lack
    ``complete_stream`` (the built-in clients and Rath's async ones stream); its client is
    built to look, as OpenRath's loop builds it before the first call.
    """
    factory = sync_factory(provider.provider_kind or "openai")
    if factory is None:
        return None
    client = factory(provider)
    if isinstance(client, StreamingChatClient):
        return None
    return not_streaming(client, provider)


def not_streaming(client: object, provider: Provider) -> TypeError:
    """The error of ``on_event`` with a client that has no ``complete_stream``."""
    return TypeError(
        f"on_event requires a streaming client: the {type(client).__name__} of provider "
        f"kind {provider.provider_kind!r} has no complete_stream"
    )
