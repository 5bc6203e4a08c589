"""OpenRath's ``rath.llm.anthropic.client``: the Anthropic chat client (both faces)."""

from __future__ import annotations

from typing import Any

import anthropic

from rath.llm._anthropic_stream import AnthropicStreamAnswer
from rath.llm._anthropic_wire import (
    anthropic_completion,
    anthropic_request,
    build_anthropic_kwargs,
    normalize_anthropic_response,
)
from rath.llm._wire import wire_parts
from rath.llm.chat_request import RathLLMChatRequest
from rath.llm.chat_response import RathLLMChatResponse
from rath.llm.clients.http import SDKErrors
from rath.llm.clients.sdk import SDKChatClient
from rath.llm.provider import ProviderSpec

__all__ = ["ANTHROPIC_RETRYABLE", "RathAnthropicChatClient"]

ANTHROPIC_ERRORS = SDKErrors(
    status=anthropic.APIStatusError,
    timeout=anthropic.APITimeoutError,
    connection=anthropic.APIConnectionError,
    validation=anthropic.APIResponseValidationError,
)
ANTHROPIC_RETRYABLE: tuple[type[Exception], ...] = (
    anthropic.RateLimitError,
    anthropic.APIConnectionError,
    anthropic.APITimeoutError,
    anthropic.InternalServerError,
)
"""The ``anthropic`` exceptions OpenRath retried (Rath classifies by status)."""


def anthropic_sdk(
    base_url: str | None, api_key: str, timeout: float, *, asynchronous: bool
) -> anthropic.Anthropic | anthropic.AsyncAnthropic:
    """The one place an ``anthropic`` SDK client is made: never retrying; async over aiohttp."""
    if asynchronous:
        return anthropic.AsyncAnthropic(
            api_key=api_key,
            base_url=base_url,
            max_retries=0,
            timeout=timeout,
            http_client=anthropic.DefaultAioHttpClient(timeout=timeout),
        )
    return anthropic.Anthropic(api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout)


class RathAnthropicChatClient(SDKChatClient):
    """Anthropic's Messages API (``POST {base_url}/v1/messages``), from plain Python or a worker.

    OpenRath's client takes the key from the provider, ``ANTHROPIC_API_KEY`` or the config file;
    ``ANTHROPIC_DEFAULT_MODEL`` only when the provider names no model.

    Raises:
        ConfigError: No key and no base URL (a ``ValueError``: "No Anthropic api_key found").
    """

    path = "/v1/messages"
    errors = ANTHROPIC_ERRORS
    new_sdk = staticmethod(anthropic_sdk)
    default_kind = "anthropic"
    label = "Anthropic"
    key_envs = staticmethod(lambda url: ("ANTHROPIC_API_KEY",))
    stream_answer = AnthropicStreamAnswer

    def _kwargs(self, req: RathLLMChatRequest, *, stream: bool) -> dict[str, Any]:
        kwargs = build_anthropic_kwargs(req, default_model=self._default_model)
        # ``messages.create`` streams only when asked (OpenRath used ``messages.stream``).
        return {**kwargs, "stream": True} if stream else kwargs

    def _create(self, sdk: Any, kwargs: dict[str, Any]) -> Any:
        return sdk.messages.create(**kwargs)

    def _normalize(self, raw: Any) -> RathLLMChatResponse:
        return normalize_anthropic_response(raw)

    def _body(self, req: RathLLMChatRequest) -> dict[str, Any]:
        messages, tools, options = wire_parts(req)
        return anthropic_request(messages, tools, model=self._model, options=options)

    def _completion(self, answer: object) -> RathLLMChatResponse:
        return anthropic_completion(answer)

    def _stream_body(self, body: dict[str, Any]) -> tuple[dict[str, Any], Any]:
        return {**body, "stream": True}, anthropic.AsyncStream[object]


def anthropic_client(spec: ProviderSpec, api_key: str | None) -> RathAnthropicChatClient:
    """The worker's factory for ``"anthropic"`` (``ANTHROPIC_*`` fill gaps)."""
    return RathAnthropicChatClient.for_spec(spec, api_key)
