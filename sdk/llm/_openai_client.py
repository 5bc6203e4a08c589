"""The ``"openai"`` chat client (any OpenAI-compatible server) and the ``"demo"`` one.

Built on the official ``openai`` SDK with ``max_retries=0``: Temporal owns retries, and every
failure is classified once, here, into a :class:`~rath.llm.ProviderError`. The SDK's
``aiohttp`` transport carries the requests: it costs a worker less CPU per call than the
default one (docs/benchmarks.md, P5).
"""

from __future__ import annotations

from typing import Any, Literal, overload

import openai

from rath.llm._azure import azure_api_version, azure_endpoint, azure_style
from rath.llm._http import SDKErrors
from rath.llm._openai_stream import OpenAIStreamAnswer
from rath.llm._sdk_client import DEFAULT_TIMEOUT, Endpoint, SDKChatClient, resolve_endpoint
from rath.llm._wire import openai_answer, openai_body
from rath.llm.chat_request import RathLLMChatRequest
from rath.llm.chat_response import RathLLMChatResponse
from rath.llm.provider import ProviderSpec
from rath.testing.demo import DEMO_MODEL, demo_base_url

OPENAI_ERRORS = SDKErrors(
    status=openai.APIStatusError,
    timeout=openai.APITimeoutError,
    connection=openai.APIConnectionError,
    validation=openai.APIResponseValidationError,
)
_DEMO_KEY = "rath-demo-not-a-secret"


@overload
def openai_sdk(
    base_url: str | None, api_key: str, timeout: float, *, asynchronous: Literal[True]
) -> openai.AsyncOpenAI: ...


@overload
def openai_sdk(
    base_url: str | None, api_key: str, timeout: float, *, asynchronous: Literal[False]
) -> openai.OpenAI: ...


def openai_sdk(
    base_url: str | None, api_key: str, timeout: float, *, asynchronous: bool
) -> openai.OpenAI | openai.AsyncOpenAI:
    """The one place an ``openai`` SDK client is made, for both faces of the chat clients.

    Never retrying (Temporal, or OpenRath's retry helper, owns retries); the async one over
    ``aiohttp``. Azure's older ``/openai`` endpoints get its deployments client (the SDK puts
    ``/deployments/<model>`` in the path and ``api-version`` in the query).
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


class OpenAIChatClient(SDKChatClient):
    """Chat Completions over ``POST {base_url}/chat/completions``.

    Args:
        endpoint: Where to call; ``base_url=None`` is OpenAI's.
        kind: The registered kind, for messages (``"openai"`` or ``"demo"``).
    """

    path = "/chat/completions"
    errors = OPENAI_ERRORS

    def __init__(self, endpoint: Endpoint, *, kind: str = "openai") -> None:
        sdk = openai_sdk(endpoint.base_url, endpoint.api_key, endpoint.timeout, asynchronous=True)
        where = "the demo model" if kind == "demo" else kind
        if endpoint.base_url and kind != "demo":
            where = f"{kind} at {endpoint.base_url}"
        super().__init__(kind=kind, endpoint=endpoint, sdk=sdk, where=where)

    def _body(self, req: RathLLMChatRequest) -> dict[str, Any]:
        return openai_body(req, model=self._model)

    def _completion(self, answer: object) -> RathLLMChatResponse:
        return openai_answer(answer)

    def _stream_body(self, body: dict[str, Any]) -> tuple[dict[str, Any], Any]:
        streamed = {**body, "stream": True, "stream_options": {"include_usage": True}}
        return streamed, openai.AsyncStream[object]

    def _stream_answer(self) -> OpenAIStreamAnswer:
        return OpenAIStreamAnswer(where=self._site.where, model=self._model)


def openai_client(spec: ProviderSpec, api_key: str | None) -> OpenAIChatClient:
    """The registry factory for ``"openai"``: defaults from ``OPENAI_*`` variables.

    Raises:
        ConfigError: No model, or no key and no ``base_url`` (OpenAI's own API needs a key).
    """
    return OpenAIChatClient(resolve_endpoint(spec, api_key, label="OpenAI", env_prefix="OPENAI"))


def demo_client(spec: ProviderSpec, api_key: str | None) -> OpenAIChatClient:
    """The registry factory for ``"demo"``: Rath's offline scripted model on loopback."""
    endpoint = Endpoint(
        base_url=demo_base_url(),
        model=spec.model or DEMO_MODEL,
        api_key=_DEMO_KEY,
        timeout=spec.request_timeout or DEFAULT_TIMEOUT,
    )
    return OpenAIChatClient(endpoint, kind="demo")
