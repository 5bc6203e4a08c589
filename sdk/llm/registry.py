"""OpenRath's ``rath.llm.registry``: which synchronous chat client serves a provider's kind.

Rath's durable runs use the async face instead (:func:`rath.llm.aio.async_chat_client_for`).
"""

from __future__ import annotations

from rath.errors import ConfigError
from rath.llm._registry import register_chat_client, registered_kinds, sync_factory
from rath.llm.anthropic import RathAnthropicChatClient
from rath.llm.base import ChatClient, ChatClientFactory, StreamingChatClient
from rath.llm.openai import RathOpenAIChatClient
from rath.llm.provider import Provider

__all__ = [
    "chat_client_for",
    "register_chat_client",
    "registered_kinds",
]


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
    ``complete_stream`` (the built-in clients and Rath's async ones stream). A class is read,
    not built; another factory's client is built to look, as OpenRath's loop builds it.
    """
    factory = sync_factory(provider.provider_kind or "openai")
    if factory is None:
        return None
    if isinstance(factory, type):
        streams, name = callable(getattr(factory, "complete_stream", None)), factory.__name__
    else:
        client = factory(provider)
        streams, name = isinstance(client, StreamingChatClient), type(client).__name__
    return None if streams else not_streaming(name, provider)


def not_streaming(client_name: str, provider: Provider) -> TypeError:
    """The error of ``on_event`` with a client that has no ``complete_stream``."""
    return TypeError(
        f"on_event requires a streaming client: the {client_name} of provider "
        f"kind {provider.provider_kind!r} has no complete_stream"
    )
