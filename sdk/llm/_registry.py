"""The async chat-client registry: which client serves which ``provider_kind``.

Built in: ``"openai"``, ``"anthropic"``, ``"demo"``; the worker's pool moves to the next key
when an endpoint rejects one (docs/providers.md, "Custom kinds", "Credentials").
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar, cast

from rath.config import default_store
from rath.errors import ConfigError
from rath.llm._client import AsyncChatClient, ChatRequest
from rath.llm._errors import ProviderError
from rath.llm._executor import openrath_factory
from rath.llm._openai_client import demo_client, openai_client
from rath.llm._wire import Completion
from rath.llm.credentials import VAULT, CredentialVault
from rath.llm.provider import (
    Provider,
    ProviderSpec,
    declare_kind,
    default_key_env,
    spec_from_provider,
)

T = TypeVar("T")

AsyncChatClientFactory = Callable[[ProviderSpec, str | None], AsyncChatClient]
"""Builds a client for a provider and one resolved API key (``None`` when the worker has none)."""


_FACTORIES: dict[str, AsyncChatClientFactory] = {}
_SYNC_FACTORIES: dict[str, Callable[[Provider], Any]] = {}  # OpenRath's, as registered


def register_chat_client(
    kind: str,
    factory: AsyncChatClientFactory | Callable[[Provider], Any],
    *,
    key_env: str | None = None,
) -> None:
    """Serve ``Provider(provider_kind=kind)`` (and ``model="kind:..."``) with ``factory``.

    Registering a kind again replaces it. This adds global state (one registry per process).

    Args:
        kind: The kind's name, e.g. ``"my-gateway"``.
        factory: ``factory(spec, api_key) -> AsyncChatClient``; it raises
            :class:`~rath.errors.ConfigError` for an unusable configuration. OpenRath's
            ``factory(provider)`` of a synchronous client (``complete(RathLLMChatRequest)``
            returning a ``RathLLMChatResponse``) is taken too: its client is called on a
            thread, with a :class:`Provider` rebuilt on the worker (the resolved key in it).
        key_env: The variable a worker reads the key from when the provider names none.
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


def sync_factory(kind: str) -> Callable[[Provider], Any] | None:
    """The ``factory(provider)`` registered for ``kind`` in OpenRath's form, if it was."""
    return _SYNC_FACTORIES.get(kind)


def _takes_one_argument(factory: Callable[..., Any]) -> bool:
    """Whether ``factory`` is OpenRath's ``factory(provider)`` (Rath's takes spec and key)."""
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = [p for p in parameters if p.kind in positional and p.default is p.empty]
    return len(required) == 1


def registered_kinds() -> tuple[str, ...]:
    """The kinds a provider may name, sorted."""
    return tuple(sorted(_FACTORIES))


def async_chat_client_for(
    provider: Provider | ProviderSpec, *, vault: CredentialVault = VAULT
) -> AsyncChatClient:
    """A new async client for ``provider`` (call :meth:`AsyncChatClient.aclose` when done).

    Rath's own clients, the ones its activities use (the LLM activities keep a
    :class:`ChatClients` pool): ``await client.complete(ChatRequest(...))``. OpenRath's
    synchronous clients come from :func:`rath.llm.chat_client_for`.

    Raises:
        ConfigError: Unknown kind, no model, or no usable key.
    """
    return ChatClients(vault).client(_as_spec(provider, vault))


class ChatClients:
    """A pool of chat clients by provider and key, built once and reused (one per worker).

    Thread-safe: an activity builds clients off its event loop (:meth:`aclient`), because a
    kind's first client imports its SDK, and importing ``anthropic`` takes about a second, too
    long to block a worker's loop (heartbeats and other activities share it).

    Args:
        vault: Where credential references resolve.
    """

    def __init__(self, vault: CredentialVault = VAULT) -> None:
        self._vault = vault
        self._built: dict[tuple[Any, ...], AsyncChatClient] = {}
        self._warm: set[str] = set()  # kinds whose factory (and SDK import) has run
        self._lock = threading.Lock()

    async def aclient(self, spec: ProviderSpec) -> AsyncChatClient:
        """:meth:`client`, on a thread the first time a kind is used, so a loop never blocks."""
        if spec.kind in self._warm:
            return self.client(spec)
        return await asyncio.to_thread(self.client, spec)

    def client(self, spec: ProviderSpec) -> AsyncChatClient:
        """The client for ``spec``: one key's, or a fallback over several keys.

        Raises:
            ConfigError: Unknown kind, no model, or no usable key.
        """
        with self._lock:
            return self._client(spec)

    def _client(self, spec: ProviderSpec) -> AsyncChatClient:
        factory = _FACTORIES.get(spec.kind)
        if factory is None:
            raise ConfigError(
                f"unknown provider kind {spec.kind!r}; registered: "
                f"{', '.join(registered_kinds())} (see rath.llm.register_chat_client)"
            )
        keys: Sequence[str | None] = (
            self._vault.resolve_all(spec.key_refs(), default_env=default_key_env(spec.kind))
            or self._configured_key(spec)
            or [None]
        )
        site = (spec.kind, spec.base_url, spec.model, spec.request_timeout)
        clients = [self._one(factory, spec, site, key) for key in keys]
        if len(clients) == 1:
            return clients[0]
        fallback = self._built.get((*site, tuple(keys)))
        if fallback is None:
            fallback = KeyFallbackClient(clients)
            self._built[(*site, tuple(keys))] = fallback
        return fallback

    def _configured_key(self, spec: ProviderSpec) -> list[str]:
        """This worker's config-file key for a spec that names none (OpenRath's last tier)."""
        if spec.key_refs() or spec.kind not in ("openai", "anthropic"):
            return []
        entry = default_store().find_provider_by_kind(spec.kind)
        if entry is None or not entry.api_key:
            return []
        self._vault.note_handed_out(entry.api_key)
        return [entry.api_key]

    async def aclose(self) -> None:
        """Close every client built so far."""
        with self._lock:
            built, self._built = list(self._built.values()), {}
        for client in built:
            if not isinstance(client, KeyFallbackClient):  # its clients are in the pool too
                await client.aclose()

    def _one(
        self,
        factory: AsyncChatClientFactory,
        spec: ProviderSpec,
        site: tuple[Any, ...],
        key: str | None,
    ) -> AsyncChatClient:
        client = self._built.get((*site, key))
        if client is None:
            client = factory(spec, key)
            self._built[(*site, key)] = client
            self._warm.add(spec.kind)
        return client


class KeyFallbackClient:
    """Tries its clients (one per API key) in turn while the endpoint rejects the key.

    The key that last worked is tried first next time, so a revoked first key costs one
    rejected request per worker, not one per call.
    """

    def __init__(self, clients: Sequence[AsyncChatClient]) -> None:
        self._clients = list(clients)
        self._preferred = 0

    @property
    def kind(self) -> str:
        """The kind of the underlying clients."""
        return self._clients[0].kind

    @property
    def model(self) -> str:
        """The model of the underlying clients."""
        return self._clients[0].model

    async def complete(self, request: ChatRequest) -> Completion:
        """Complete with the first key the endpoint accepts (see :meth:`with_keys`)."""
        return await self.with_keys(lambda client: client.complete(request))

    async def with_keys(self, call: Callable[[AsyncChatClient], Awaitable[T]]) -> T:
        """Run ``call`` with each key's client in turn until the endpoint accepts one.

        The key that last worked is tried first; the one that works is remembered.

        Raises:
            ProviderError: A failure other than a rejected key, or every key was rejected
                (non-retryable, naming how many keys were tried).
        """
        order = [self._preferred] + [i for i in range(len(self._clients)) if i != self._preferred]
        for tried, index in enumerate(order, start=1):
            try:
                result = await call(self._clients[index])
            except ProviderError as exc:
                if not exc.auth_rejected:
                    raise
                if tried < len(order):
                    # Off this key now, not only once another succeeds: a next key that
                    # fails for another reason (429) must not send every retry here first.
                    if self._preferred == index:
                        self._preferred = order[tried]
                    continue
                raise ProviderError(
                    f"{exc} (all {len(order)} API keys were rejected)",
                    error_type=exc.error_type,
                    retryable=False,
                    status=exc.status,
                ) from None
            self._preferred = index
            return result
        raise AssertionError("unreachable: a fallback client has at least one key")

    async def aclose(self) -> None:
        """Close the underlying clients."""
        for client in self._clients:
            await client.aclose()


def _as_spec(provider: Provider | ProviderSpec, vault: CredentialVault) -> ProviderSpec:
    if isinstance(provider, ProviderSpec):
        return provider
    ref = vault.register(provider.api_key) if provider.api_key else None
    return spec_from_provider(provider, api_key_ref=ref, demo_fallback=False)


def _anthropic(spec: ProviderSpec, api_key: str | None) -> AsyncChatClient:
    # A heavy import deferred, not a cycle dodged: importing the `anthropic` SDK takes about a
    # second, so it loads when a worker first serves an Anthropic provider, never before.
    from rath.llm._anthropic_client import anthropic_client

    return anthropic_client(spec, api_key)


register_chat_client("openai", openai_client, key_env="OPENAI_API_KEY")
register_chat_client("anthropic", _anthropic, key_env="ANTHROPIC_API_KEY")
register_chat_client("demo", demo_client)
