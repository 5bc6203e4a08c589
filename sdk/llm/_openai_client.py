"""The ``"openai"`` chat client (any OpenAI-compatible server) and the ``"demo"`` one.

Built on the official ``openai`` SDK with ``max_retries=0``: Temporal owns retries, and every
failure is classified once, here, into a :class:`~rath.llm.ProviderError`. The SDK's
``aiohttp`` transport carries the requests: it costs a worker less CPU per call than the
default one (docs/benchmarks.md, P5).
"""

from __future__ import annotations

from typing import Any

import openai
from openai.types.chat import ChatCompletion

from rath.llm._azure import azure_api_version, azure_endpoint, azure_style
from rath.llm._client import ChatRequest
from rath.llm._http import SDKErrors
from rath.llm._openai_stream import OpenAIStreamAnswer
from rath.llm._sdk_client import DEFAULT_TIMEOUT, Endpoint, SDKChatClient, resolve_endpoint
from rath.llm._wire import Completion, build_request, normalize_completion
from rath.llm.provider import ProviderSpec
from rath.testing.demo import DEMO_MODEL, demo_base_url

OPENAI_ERRORS = SDKErrors(
    status=openai.APIStatusError,
    timeout=openai.APITimeoutError,
    connection=openai.APIConnectionError,
    validation=openai.APIResponseValidationError,
)
_DEMO_KEY = "rath-demo-not-a-secret"


class OpenAIChatClient(SDKChatClient):
    """Chat Completions over ``POST {base_url}/chat/completions``.

    Args:
        endpoint: Where to call; ``base_url=None`` is OpenAI's.
        kind: The registered kind, for messages (``"openai"`` or ``"demo"``).
    """

    path = "/chat/completions"
    errors = OPENAI_ERRORS

    def __init__(self, endpoint: Endpoint, *, kind: str = "openai") -> None:
        sdk: openai.AsyncOpenAI
        if azure_style(endpoint.base_url) == "legacy" and endpoint.base_url:
            # Deployments: the SDK puts /deployments/<model> in the path and api-version in
            # the query.
            sdk = openai.AsyncAzureOpenAI(
                api_key=endpoint.api_key,
                azure_endpoint=azure_endpoint(endpoint.base_url),
                api_version=azure_api_version(),
                max_retries=0,
                timeout=endpoint.timeout,
                http_client=openai.DefaultAioHttpClient(timeout=endpoint.timeout),
            )
        else:
            sdk = openai.AsyncOpenAI(
                api_key=endpoint.api_key,
                base_url=endpoint.base_url,
                max_retries=0,
                timeout=endpoint.timeout,
                http_client=openai.DefaultAioHttpClient(timeout=endpoint.timeout),
            )
        where = "the demo model" if kind == "demo" else kind
        if endpoint.base_url and kind != "demo":
            where = f"{kind} at {endpoint.base_url}"
        super().__init__(kind=kind, endpoint=endpoint, sdk=sdk, where=where)

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        return build_request(
            request.messages, request.tools, model=self._model, options=request.options
        )

    def _completion(self, answer: object, round_index: int) -> Completion:
        # Lenient, like the SDK: OpenAI-compatible servers omit fields OpenAI always sends.
        completion = (
            ChatCompletion.model_construct(**answer) if isinstance(answer, dict) else answer
        )
        return normalize_completion(completion, round_index=round_index)

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
