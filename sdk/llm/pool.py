"""The worker's chat clients: a pool by provider and key, key fallback, and streamed calls.

docs/providers.md, "Credentials and fallback keys", "Streaming".
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from rath.config import default_store
from rath.llm.base import AsyncChatClient, AsyncChatClientFactory, AsyncStreamingChatClient
from rath.llm.chat_request import RathLLMChatRequest
from rath.llm.chat_response import RathLLMChatResponse, RathLLMStreamDelta
from rath.llm.credentials import VAULT, CredentialVault
from rath.llm.errors import ProviderError
from rath.llm.provider import Provider, ProviderSpec, default_key_env, spec_from_provider
from rath.llm.registry import async_factory
from rath.llm.stream import Emit

T = TypeVar("T")


def async_chat_client_for(
    provider: Provider | ProviderSpec, *, vault: CredentialVault = VAULT
) -> AsyncChatClient:
    """A new async client for ``provider`` (``aclose`` it when done).

    Raises:
        ConfigError: Unknown kind, no model, or no usable key.
    """
    return ChatClients(vault).client(_as_spec(provider, vault))


class ChatClients:
    """Chat clients by provider and key, built once and reused (one pool per worker).

    Thread-safe: a kind's first client is built off the event loop (:meth:`aclient`), since
    importing its SDK (``anthropic``: about a second) must not block a worker's loop.
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
        factory = async_factory(spec.kind)
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
    """Tries its clients (one per key) in turn while the endpoint rejects the key (401/403).

    The key that last worked goes first next time: a revoked key costs one request per worker.
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

    async def acomplete(self, req: RathLLMChatRequest) -> RathLLMChatResponse:
        """Complete with the first key the endpoint accepts (see :meth:`with_keys`)."""
        return await self.with_keys(lambda client: client.acomplete(req))

    async def with_keys(self, call: Callable[[AsyncChatClient], Awaitable[T]]) -> T:
        """Run ``call`` with each key's client in turn until the endpoint accepts one.

        Raises:
            ProviderError: Another failure, or every key was rejected (non-retryable).
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


async def stream_completion(
    client: AsyncChatClient, req: RathLLMChatRequest, emit: Emit, *, round_index: int = 1
) -> RathLLMChatResponse:
    """One chat call streamed: ``emit`` gets each delta, the whole answer comes back named.

    A client without ``astream`` answers in one piece, emitted as a few deltas.

    Raises:
        ProviderError: The endpoint failed (classified: retryable or not).
    """
    if isinstance(client, KeyFallbackClient):
        return await client.with_keys(
            lambda one: stream_completion(one, req, emit, round_index=round_index)
        )
    if isinstance(client, AsyncStreamingChatClient):
        return named_calls(await client.astream(req, emit), round_index)
    response = named_calls(await client.acomplete(req), round_index)
    for delta in completion_deltas(response):
        emit(delta)
    return response


def named_calls(response: RathLLMChatResponse, round_index: int) -> RathLLMChatResponse:
    """``response`` with its id-less tool calls named ``call_<round>_<index>``."""
    choice = response.primary_choice
    calls = choice.message.tool_calls or ()
    if all(call.id for call in calls):
        return response
    named = tuple(
        call if call.id else dataclasses.replace(call, id=f"call_{round_index}_{index}")
        for index, call in enumerate(calls)
    )
    message = dataclasses.replace(choice.message, tool_calls=named)
    choice = dataclasses.replace(choice, message=message)
    return dataclasses.replace(response, choices=(choice, *response.choices[1:]))


def completion_deltas(response: RathLLMChatResponse) -> list[RathLLMStreamDelta]:
    """The deltas of an answer that arrived in one piece."""
    choice = response.primary_choice
    content = choice.message.content
    out = [RathLLMStreamDelta(content_delta=content)] if content else []
    for index, call in enumerate(choice.message.tool_calls or ()):
        out.append(
            RathLLMStreamDelta(
                tool_call_index=index,
                tool_call_id=call.id,
                tool_call_name_delta=call.function.name,
                tool_call_args_delta=call.function.arguments or None,
            )
        )
    out.append(RathLLMStreamDelta(finish_reason=choice.finish_reason))
    if response.usage is not None:
        out.append(RathLLMStreamDelta(usage=response.usage))
    return out
