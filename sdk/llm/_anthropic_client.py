"""The ``"anthropic"`` chat client: Anthropic's Messages API through the official SDK.

Built with ``max_retries=0`` (Temporal owns retries); failures are classified once, here, by
the same rules as the OpenAI client. Translation lives in ``_anthropic_wire.py``.
"""

from __future__ import annotations

from typing import Any, Literal, overload

import anthropic

from rath.llm._anthropic_stream import AnthropicStreamAnswer
from rath.llm._anthropic_wire import anthropic_completion, anthropic_request
from rath.llm._http import SDKErrors
from rath.llm._sdk_client import Endpoint, SDKChatClient, resolve_endpoint
from rath.llm._wire import wire_parts
from rath.llm.chat_request import RathLLMChatRequest
from rath.llm.chat_response import RathLLMChatResponse
from rath.llm.provider import ProviderSpec

ANTHROPIC_ERRORS = SDKErrors(
    status=anthropic.APIStatusError,
    timeout=anthropic.APITimeoutError,
    connection=anthropic.APIConnectionError,
    validation=anthropic.APIResponseValidationError,
)


@overload
def anthropic_sdk(
    base_url: str | None, api_key: str, timeout: float, *, asynchronous: Literal[True]
) -> anthropic.AsyncAnthropic: ...


@overload
def anthropic_sdk(
    base_url: str | None, api_key: str, timeout: float, *, asynchronous: Literal[False]
) -> anthropic.Anthropic: ...


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


class AnthropicChatClient(SDKChatClient):
    """Messages over ``POST {base_url}/v1/messages``.

    Args:
        endpoint: Where to call; ``base_url`` has no ``/v1`` (``None`` is Anthropic's).
    """

    path = "/v1/messages"
    errors = ANTHROPIC_ERRORS

    def __init__(self, endpoint: Endpoint) -> None:
        sdk = anthropic_sdk(
            endpoint.base_url, endpoint.api_key, endpoint.timeout, asynchronous=True
        )
        where = f"anthropic at {endpoint.base_url}" if endpoint.base_url else "anthropic"
        super().__init__(kind="anthropic", endpoint=endpoint, sdk=sdk, where=where)

    def _body(self, req: RathLLMChatRequest) -> dict[str, Any]:
        messages, tools, options = wire_parts(req)
        return anthropic_request(messages, tools, model=self._model, options=options)

    def _completion(self, answer: object) -> RathLLMChatResponse:
        return anthropic_completion(answer)

    def _stream_body(self, body: dict[str, Any]) -> tuple[dict[str, Any], Any]:
        return {**body, "stream": True}, anthropic.AsyncStream[object]

    def _stream_answer(self) -> AnthropicStreamAnswer:
        return AnthropicStreamAnswer(where=self._site.where, model=self._model)


def anthropic_client(spec: ProviderSpec, api_key: str | None) -> AnthropicChatClient:
    """The registry factory for ``"anthropic"``: defaults from ``ANTHROPIC_*`` variables.

    Raises:
        ConfigError: No model, or no key and no ``base_url``.
    """
    return AnthropicChatClient(
        resolve_endpoint(spec, api_key, label="Anthropic", env_prefix="ANTHROPIC")
    )
