"""What the clients built on the official SDKs share: endpoint defaults, the call, closing.

``openai`` and ``anthropic`` are generated from the same template, so their clients differ
only in the path they post to and how a request and its answer are translated.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rath.errors import ConfigError
from rath.llm._http import CallSite, SDKErrors, mid_stream_errors, provider_errors
from rath.llm.chat_request import RathLLMChatRequest
from rath.llm.chat_response import RathLLMChatResponse
from rath.llm.credentials import redact_secrets
from rath.llm.errors import ProviderError
from rath.llm.provider import ProviderSpec
from rath.llm.stream import Emit, StreamAnswer

DEFAULT_TIMEOUT = 600.0
DEFAULT_STREAM_IDLE = 60.0
"""Seconds a streamed answer may send nothing before the attempt ends (and is retried)."""
_END = object()


@dataclass(frozen=True)
class Endpoint:
    """Where and how to call, with the worker's defaults applied (its repr hides the key)."""

    base_url: str | None
    model: str
    api_key: str = field(repr=False)
    timeout: float = DEFAULT_TIMEOUT
    stream_idle: float = DEFAULT_STREAM_IDLE


def resolve_endpoint(
    spec: ProviderSpec, api_key: str | None, *, label: str, env_prefix: str
) -> Endpoint:
    """The endpoint for ``spec``: ``<PREFIX>_BASE_URL`` and ``<PREFIX>_DEFAULT_MODEL`` fill gaps.

    Raises:
        ConfigError: No model, or no key and no ``base_url`` (a hosted API needs a key; a
            local compatible server gets a placeholder).
    """
    base_url = spec.base_url or os.environ.get(f"{env_prefix}_BASE_URL") or None
    model = spec.model or os.environ.get(f"{env_prefix}_DEFAULT_MODEL") or ""
    if not model:
        raise ConfigError(
            f"no model for {label}: set Provider(model=...) or {env_prefix}_DEFAULT_MODEL "
            "on the worker"
        )
    if api_key is None:
        if base_url is None:
            raise ConfigError(
                f"no API key for {label}: set {spec.key_names(f'{env_prefix}_API_KEY')} in the "
                "worker's environment (or Provider(api_key_env='NAME')), or point "
                "Provider(base_url=...) at a compatible server"
            )
        api_key = "unused"  # local compatible servers ignore the key; the SDKs want one
    return Endpoint(
        base_url, model, api_key, spec.request_timeout or DEFAULT_TIMEOUT, stream_idle_seconds()
    )


def stream_idle_seconds() -> float:
    """``RATH_STREAM_IDLE_SECONDS`` on this worker (default :data:`DEFAULT_STREAM_IDLE`).

    Raises:
        ConfigError: Not a positive number.
    """
    text = os.environ.get("RATH_STREAM_IDLE_SECONDS")
    if not text:
        return DEFAULT_STREAM_IDLE
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if value <= 0:
        raise ConfigError(f"RATH_STREAM_IDLE_SECONDS must be a positive number, not {text!r}")
    return value


class SDKChatClient:
    """A chat client over an official SDK client; subclasses supply the wire.

    Subclasses set :attr:`path` and :attr:`errors` and implement :meth:`_body` and
    :meth:`_completion`; to stream, also :meth:`_stream_body` and :meth:`_stream_answer`.

    Args:
        kind: The registered kind, for messages.
        endpoint: Where to call.
        sdk: The SDK's async client, built with ``max_retries=0``.
        where: How messages name the endpoint.
    """

    path: ClassVar[str]
    errors: ClassVar[SDKErrors]

    def __init__(self, *, kind: str, endpoint: Endpoint, sdk: Any, where: str) -> None:
        self._kind = kind
        self._model = endpoint.model
        self._sdk = sdk
        self._stream_idle = endpoint.stream_idle
        self._site = CallSite(
            where=where,
            model=endpoint.model,
            timeout=endpoint.timeout,
            redact=lambda text: redact_secrets(text, [endpoint.api_key]),
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._site.where}, model={self._model!r})"

    @property
    def kind(self) -> str:
        """The registered kind that built this client."""
        return self._kind

    @property
    def model(self) -> str:
        """The model this client asks for."""
        return self._model

    async def acomplete(self, req: RathLLMChatRequest) -> RathLLMChatResponse:
        """Translate the request, post it, and translate the answer back.

        Raises:
            ProviderError: The endpoint failed (classified: retryable or not).
        """
        body = self._body(req)
        with provider_errors(self.errors, self._site):
            # `object` keeps the answer as parsed JSON; the typed SDK methods would re-walk
            # the (already wire-form) request, costing milliseconds per call.
            answer = await self._sdk.post(self.path, body=body, cast_to=object)
            return self._completion(answer)

    async def astream(self, req: RathLLMChatRequest, emit: Emit) -> RathLLMChatResponse:
        """The call of :meth:`acomplete`, streamed (SSE): ``emit`` gets each delta as it comes.

        Raises:
            ProviderError: As for :meth:`complete`, plus what only a stream can do: stall,
                break off, end before the answer finished, or report an error mid-stream
                (all retryable).
        """
        answer = self._stream_answer()
        body, stream_cls = self._stream_body(self._body(req))
        with provider_errors(self.errors, self._site), mid_stream_errors(self.errors, self._site):
            stream = await self._sdk.post(
                self.path, body=body, cast_to=object, stream=True, stream_cls=stream_cls
            )
            async with stream:  # closed on every path: an error, a cancel, the end
                items = aiter(stream)
                while (item := await self._next(items)) is not _END:
                    for delta in answer.feed(item):
                        emit(delta)
            return self._completion(answer.answer())

    async def _next(self, items: AsyncIterator[Any]) -> Any:
        """The stream's next item (:data:`_END` after the last), or a retryable stall error.

        Only silence counts: a model that keeps sending, however slowly, is never cut off.
        """
        try:
            return await asyncio.wait_for(anext(items), self._stream_idle)
        except StopAsyncIteration:
            return _END
        except TimeoutError:
            raise ProviderError(
                f"{self._site.where} sent nothing for {self._stream_idle:g}s mid-stream for "
                f"model {self._model!r} (RATH_STREAM_IDLE_SECONDS); retrying",
                error_type="LLMTimeout",
                retryable=True,
            ) from None

    async def aclose(self) -> None:
        """Close the SDK's HTTP client."""
        await self._sdk.close()

    def _body(self, req: RathLLMChatRequest) -> dict[str, Any]:
        raise NotImplementedError

    def _completion(self, answer: object) -> RathLLMChatResponse:
        raise NotImplementedError

    def _stream_body(self, body: dict[str, Any]) -> tuple[dict[str, Any], Any]:
        """The body of a streamed call, and the SDK's stream class to read it with."""
        raise NotImplementedError

    def _stream_answer(self) -> StreamAnswer:
        raise NotImplementedError
