"""One chat call, streamed: deltas go to a callback as they come, the whole answer is returned.

A client streams when it has ``stream(request, emit)`` (:class:`AsyncStreamingChatClient`); the
built-in ones do, over their official SDK (``stream: true``, SSE). Any other registered client
answers in one piece, which is then emitted as a few deltas. A client with fallback keys
streams through the key that is accepted.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from rath.llm._client import AsyncChatClient, ChatRequest
from rath.llm._registry import KeyFallbackClient
from rath.llm._wire import Completion
from rath.llm.chat_response import RathLLMStreamDelta
from rath.llm.stream import Emit


@runtime_checkable
class AsyncStreamingChatClient(Protocol):
    """A chat client that streams on its own (optional for registered clients)."""

    async def stream(self, request: ChatRequest, emit: Emit) -> Completion:
        """Run one chat call, calling ``emit`` with each delta; return the whole answer."""
        ...


async def stream_completion(
    client: AsyncChatClient, request: ChatRequest, emit: Emit
) -> Completion:
    """Run one chat call streaming: ``emit`` gets each delta, the whole answer is returned.

    Raises:
        ProviderError: The endpoint failed (classified: retryable or not).
    """
    if isinstance(client, KeyFallbackClient):
        # A rejected key fails before any delta, so the next key starts a clean stream.
        return await client.with_keys(lambda one: stream_completion(one, request, emit))
    if isinstance(client, AsyncStreamingChatClient):
        return await client.stream(request, emit)
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
