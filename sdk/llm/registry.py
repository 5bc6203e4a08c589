"""The chat-client registry, one table for both faces (docs/providers.md, "Custom kinds")."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, cast

from rath.errors import ConfigError
from rath.llm.base import AsyncChatClientFactory, ChatClient, StreamingChatClient
from rath.llm.executors import openrath_factory
from rath.llm.provider import Provider, declare_kind
from rath.utils.targets import import_target

__all__ = ["chat_client_for", "register_chat_client", "registered_kinds"]

_FACTORIES: dict[str, AsyncChatClientFactory | str] = {
    "openai": "rath.llm.openai.client:openai_client",
    "anthropic": "rath.llm.anthropic.client:anthropic_client",
    "demo": "rath.llm.openai.client:demo_client",
}
_SYNC_FACTORIES: dict[str, Callable[[Provider], Any]] = {}  # OpenRath's, as registered
_BUILT_IN: dict[str, str] = {
    "openai": "rath.llm.openai:RathOpenAIChatClient",
    "anthropic": "rath.llm.anthropic:RathAnthropicChatClient",
}


def register_chat_client(
    kind: str,
    factory: AsyncChatClientFactory | Callable[[Provider], Any],
    *,
    key_env: str | None = None,
) -> None:
    """Serve ``Provider(provider_kind=kind)`` (and ``model="kind:..."``) with ``factory``.

    ``factory`` is Rath's ``factory(spec, api_key) -> AsyncChatClient`` or OpenRath's
    ``factory(provider)`` of a sync client (durable runs call it on a thread); ``key_env`` is
    the worker's variable for a provider that names no key. Registering again replaces a kind.
    """
    if not kind or ":" in kind:
        raise ConfigError(f"a chat-client kind is a non-empty name without ':', got {kind!r}")
    if _takes_one_argument(factory):
        sync = cast(Callable[[Provider], Any], factory)
        _FACTORIES[kind] = openrath_factory(kind, sync)
        _SYNC_FACTORIES[kind] = sync
    else:
        _FACTORIES[kind] = cast(AsyncChatClientFactory, factory)
        _SYNC_FACTORIES.pop(kind, None)
    declare_kind(kind, key_env)


def registered_kinds() -> tuple[str, ...]:
    """The kinds a provider may name, sorted."""
    return tuple(sorted(_FACTORIES))


def async_factory(kind: str) -> AsyncChatClientFactory:
    """The async factory of ``kind`` (a built-in one imports its SDK now).

    Raises:
        ConfigError: The kind is unknown.
    """
    factory = _FACTORIES.get(kind)
    if factory is None:
        raise ConfigError(
            f"unknown provider kind {kind!r}; registered: "
            f"{', '.join(registered_kinds())} (see rath.llm.register_chat_client)"
        )
    if isinstance(factory, str):
        factory = _FACTORIES[kind] = import_target(factory)
    return cast(AsyncChatClientFactory, factory)


def _takes_one_argument(factory: Callable[..., Any]) -> bool:
    """Whether ``factory`` is OpenRath's ``factory(provider)`` (Rath's takes spec and key)."""
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = [p for p in parameters if p.kind in positional and p.default is p.empty]
    return len(required) == 1


def chat_client_for(provider: Provider) -> ChatClient:
    """A synchronous client for ``provider``'s kind (``provider_kind``, else ``"openai"``).

    Raises:
        ConfigError: Unknown kind, an async-only kind, or (built-in clients) no API key.
    """
    kind = provider.provider_kind or "openai"
    factory = _SYNC_FACTORIES.get(kind)
    if factory is None and kind in _BUILT_IN:
        factory = import_target(_BUILT_IN[kind])
    if factory is not None:
        return cast(ChatClient, factory(provider))
    if kind in _FACTORIES:
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
    """The ``TypeError`` of ``on_event`` if ``provider``'s client cannot stream (OpenRath's check).

    Only an OpenRath ``factory(provider)`` kind may lack ``complete_stream``: a class is read,
    another factory's client built to look.
    """
    factory = _SYNC_FACTORIES.get(provider.provider_kind or "openai")
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
