"""One chat call, streamed: deltas go to a callback as they come, the whole answer is returned.

The built-in clients stream over their official SDK (``stream: true``, SSE). A registered
client may stream on its own by having ``stream(request, emit)`` (:class:`StreamingChatClient`);
any other client answers in one piece, which is then emitted as a few deltas. Failures are
classified as for a plain call, plus what only a stream can do: end before the answer
finished, break off, or report an error mid-stream (all retryable).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any, Protocol, cast, runtime_checkable

import httpx

from rath.llm._anthropic_stream import AnthropicStreamAnswer
from rath.llm._client import ChatClient, ChatRequest
from rath.llm._errors import ProviderError
from rath.llm._http import CallSite, SDKErrors, error_message, provider_errors
from rath.llm._openai_stream import OpenAIStreamAnswer
from rath.llm._registry import KeyFallbackClient
from rath.llm._sdk_client import SDKChatClient
from rath.llm._stream import RathLLMStreamDelta
from rath.llm._wire import Completion

Emit = Callable[[RathLLMStreamDelta], None]
"""Receives each delta as it arrives (called on the event loop; must not block)."""

_TIMEOUTS: tuple[type[BaseException], ...] = (httpx.TimeoutException,)
_TRANSPORT: tuple[type[BaseException], ...] = (httpx.TransportError,)
with contextlib.suppress(ImportError):
    import httpx2

    _TIMEOUTS += (httpx2.TimeoutException,)
    _TRANSPORT += (httpx2.TransportError,)


@runtime_checkable
class StreamingChatClient(Protocol):
    """A chat client that streams on its own (optional for registered clients)."""

    async def stream(self, request: ChatRequest, emit: Emit) -> Completion:
        """Run one chat call, calling ``emit`` with each delta; return the whole answer."""
        ...


async def stream_completion(client: ChatClient, request: ChatRequest, emit: Emit) -> Completion:
    """Run one chat call streaming: ``emit`` gets each delta, the whole answer is returned.

    Raises:
        ProviderError: The endpoint failed (classified: retryable or not).
    """
    if isinstance(client, KeyFallbackClient):
        return await _with_fallback(client, request, emit)
    if isinstance(client, StreamingChatClient):
        return await client.stream(request, emit)
    if isinstance(client, SDKChatClient):
        return await _sdk_stream(client, request, emit)
    completion = await client.complete(request)
    for delta in completion_deltas(completion):
        emit(delta)
    return completion


def completion_deltas(completion: Completion) -> list[RathLLMStreamDelta]:
    """The deltas of an answer that arrived in one piece."""
    out = [RathLLMStreamDelta(content_delta=completion.content)] if completion.content else []
    for index, call in enumerate(completion.tool_calls):
        out.append(
            RathLLMStreamDelta(
                tool_call_index=index,
                tool_call_id=call.id,
                tool_call_name_delta=call.name,
                tool_call_args_delta=call.arguments or None,
            )
        )
    out.append(RathLLMStreamDelta(finish_reason=completion.finish_reason))
    if completion.usage is not None:
        out.append(RathLLMStreamDelta(usage=completion.usage))
    return out


async def _sdk_stream(client: SDKChatClient, request: ChatRequest, emit: Emit) -> Completion:
    site: CallSite = client._site
    answer: OpenAIStreamAnswer | AnthropicStreamAnswer
    body = client._body(request)
    if client.kind == "anthropic":
        from anthropic import AsyncStream as AnthropicStream

        answer = AnthropicStreamAnswer(where=site.where, model=client.model)
        stream_cls: Any = AnthropicStream[object]
        body = {**body, "stream": True}
    else:
        from openai import AsyncStream as OpenAIStream

        answer = OpenAIStreamAnswer(where=site.where, model=client.model)
        stream_cls = OpenAIStream[object]
        body = {**body, "stream": True, "stream_options": {"include_usage": True}}
    with provider_errors(client.errors, site), _mid_stream_errors(client.errors, site):
        stream = await client._sdk.post(
            client.path, body=body, cast_to=object, stream=True, stream_cls=stream_cls
        )
        async for item in stream:
            for delta in answer.feed(item):
                emit(delta)
        return client._completion(answer.answer(), request.round_index)


@contextlib.contextmanager
def _mid_stream_errors(sdk: SDKErrors, site: CallSite) -> Iterator[None]:
    """Failures only a stream has; everything else is left to ``provider_errors``."""
    try:
        yield
    except _TIMEOUTS:
        raise ProviderError(
            f"{site.where} stalled mid-stream for model {site.model!r} (over {site.timeout:g}s "
            "between events)",
            error_type="LLMTimeout",
            retryable=True,
        ) from None
    except _TRANSPORT as exc:
        raise ProviderError(
            f"{site.where} broke off its stream for model {site.model!r}: {site.redact(str(exc))}",
            error_type="LLMBadResponse",
            retryable=True,
        ) from None
    except Exception as exc:
        if not _error_event(exc, sdk):
            raise
        message = error_message(cast(Any, exc)) if isinstance(exc, sdk.status) else str(exc)
        raise ProviderError(
            f"{site.where} reported an error mid-stream for model {site.model!r}: "
            f"{site.redact(message)}",
            error_type="LLMStreamError",
            retryable=True,
        ) from None


def _error_event(exc: Exception, sdk: SDKErrors) -> bool:
    """An error event inside a 200 stream (overloaded, server error): worth another try.

    ``anthropic`` raises it as a status error carrying the stream's 200; ``openai`` as its
    base ``APIError``.
    """
    if isinstance(exc, sdk.status):
        return int(getattr(exc, "status_code", 0) or 0) < 400
    if isinstance(exc, sdk.timeout | sdk.connection | sdk.validation):
        return False
    base = next(c for c in sdk.status.__mro__ if c.__name__ == "APIError")
    return isinstance(exc, base)


async def _with_fallback(client: KeyFallbackClient, request: ChatRequest, emit: Emit) -> Completion:
    """:meth:`KeyFallbackClient.complete`, streaming: a rejected key fails before any delta."""
    return await client.with_keys(lambda one: stream_completion(one, request, emit))
