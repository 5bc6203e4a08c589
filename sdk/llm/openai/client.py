"""OpenRath's ``rath.llm.openai.client``: the OpenAI chat client, both faces, one SDK setup."""

from __future__ import annotations

from typing import Any

import openai

from rath.llm._azure import AZURE_KEY_ENVS, azure_api_version, azure_endpoint, azure_style
from rath.llm._openai_stream import OpenAIStreamAnswer
from rath.llm._wire import normalize_chat_completion, openai_answer, openai_body
from rath.llm.chat_request import RathLLMChatRequest
from rath.llm.chat_response import RathLLMChatResponse
from rath.llm.clients.http import SDKErrors
from rath.llm.clients.sdk import (
    DEFAULT_TIMEOUT,
    Endpoint,
    SDKChatClient,
)
from rath.llm.openai.create_kwargs import to_create_kwargs, to_create_kwargs_stream
from rath.llm.provider import ProviderSpec
from rath.testing.demo import DEMO_MODEL, demo_base_url

__all__ = ["OPENAI_RETRYABLE", "RathOpenAIChatClient"]

OPENAI_ERRORS = SDKErrors(
    status=openai.APIStatusError,
    timeout=openai.APITimeoutError,
    connection=openai.APIConnectionError,
    validation=openai.APIResponseValidationError,
)
OPENAI_RETRYABLE: tuple[type[Exception], ...] = (
    openai.RateLimitError,
    openai.APIConnectionError,
    openai.APITimeoutError,
    openai.InternalServerError,
)
"""The ``openai`` exceptions OpenRath retried (Rath classifies by status: see ProviderError)."""
_DEMO_KEY = "rath-demo-not-a-secret"


def openai_sdk(
    base_url: str | None, api_key: str, timeout: float, *, asynchronous: bool
) -> openai.OpenAI | openai.AsyncOpenAI:
    """The one place an ``openai`` SDK client is made: never retrying, async over ``aiohttp``.

    Azure's older ``/openai`` endpoints get ``AzureOpenAI`` (deployments, ``api-version``).
    """
    options: dict[str, Any] = {"api_key": api_key, "max_retries": 0, "timeout": timeout}
    if asynchronous:
        options["http_client"] = openai.DefaultAioHttpClient(timeout=timeout)
    if base_url and azure_style(base_url) == "legacy":
        azure = openai.AsyncAzureOpenAI if asynchronous else openai.AzureOpenAI
        return azure(
            azure_endpoint=azure_endpoint(base_url), api_version=azure_api_version(), **options
        )
    plain = openai.AsyncOpenAI if asynchronous else openai.OpenAI
    return plain(base_url=base_url, **options)


def _key_envs(base_url: str | None) -> tuple[str, ...]:
    """The variables a key is read from: Azure's first for an Azure endpoint, else OpenAI's."""
    if azure_style(base_url):
        return (*AZURE_KEY_ENVS, "OPENAI_API_KEY")
    return ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY")


class RathOpenAIChatClient(SDKChatClient):
    """Chat Completions (``POST {base_url}/chat/completions``), from plain Python or a worker.

    ``RathOpenAIChatClient(provider)`` is OpenRath's client: endpoint, key and model from the
    provider, then ``OPENAI_*`` (Azure's variables first for an Azure endpoint), then the config
    file (docs/providers.md, "OpenAI"). A server given by a base URL needs no key.

    Raises:
        ConfigError: No key and no base URL (a ``ValueError``: "No API key found").
    """

    path = "/chat/completions"
    errors = OPENAI_ERRORS
    new_sdk = staticmethod(openai_sdk)
    default_kind = "openai"
    label = "OpenAI"
    key_envs = staticmethod(_key_envs)
    url_envs = ("OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT")
    stream_answer = OpenAIStreamAnswer

    def _kwargs(self, req: RathLLMChatRequest, *, stream: bool) -> dict[str, Any]:
        build = to_create_kwargs_stream if stream else to_create_kwargs
        return build(req, default_model=self._default_model)

    def _create(self, sdk: Any, kwargs: dict[str, Any]) -> Any:
        return sdk.chat.completions.create(**kwargs)

    def _normalize(self, raw: Any) -> RathLLMChatResponse:
        return normalize_chat_completion(raw)

    def _body(self, req: RathLLMChatRequest) -> dict[str, Any]:
        return openai_body(req, model=self._model)

    def _completion(self, answer: object) -> RathLLMChatResponse:
        return openai_answer(answer)

    def _stream_body(self, body: dict[str, Any]) -> tuple[dict[str, Any], Any]:
        streamed = {**body, "stream": True, "stream_options": {"include_usage": True}}
        return streamed, openai.AsyncStream[object]


def openai_client(spec: ProviderSpec, api_key: str | None) -> RathOpenAIChatClient:
    """The worker's factory for ``"openai"`` (``OPENAI_*`` variables fill gaps)."""
    return RathOpenAIChatClient.for_spec(spec, api_key)


def demo_client(spec: ProviderSpec, api_key: str | None) -> RathOpenAIChatClient:
    """The worker's factory for ``"demo"``: Rath's offline scripted model on loopback."""
    endpoint = Endpoint(
        base_url=demo_base_url(),
        model=spec.model or DEMO_MODEL,
        api_key=_DEMO_KEY,
        timeout=spec.request_timeout or DEFAULT_TIMEOUT,
    )
    return RathOpenAIChatClient.for_endpoint(endpoint, kind="demo")
