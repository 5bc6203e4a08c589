"""OpenRath's loop executors: what answers a run's model and tool calls. See docs/modules.md."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, cast, runtime_checkable

from rath.errors import ConfigError
from rath.llm import chat_response
from rath.llm.base import ChatClient, StreamingChatClient
from rath.llm.chat_request import RathLLMChatRequest, RathLLMFunctionTool
from rath.llm.provider import Provider
from rath.llm.registry import chat_client_for, not_streaming
from rath.llm.stream import StreamFold
from rath.session._loop import run_session_loop
from rath.session.session import Session

__all__ = [
    "DefaultSessionLoopExecutor",
    "OnEventCb",
    "SessionLoopExecutor",
    "StreamingExecutor",
    "resolve_executor",
    "run_session_loop",
]

OnEventCb = Callable[[chat_response.RathLLMStreamDelta], None]
"""Receives each streamed delta."""


@runtime_checkable
class SessionLoopExecutor(Protocol):
    """Answers a loop's model calls and runs its tool calls."""

    def complete(self, req: RathLLMChatRequest) -> chat_response.RathLLMChatResponse:
        """One model call."""
        ...

    def dispatch_tool(self, session: Session, tool: Any, arguments: Mapping[str, Any]) -> Any:
        """Run one tool call; its result (any JSON-able value)."""
        ...

    def tool_schemas(self) -> tuple[RathLLMFunctionTool, ...]:
        """The tools to offer; empty means the loop's own table."""
        ...


class DefaultSessionLoopExecutor:
    """Asks ``client`` and calls each tool with the session and its arguments."""

    def __init__(self, client: ChatClient) -> None:
        self.client = client

    def complete(self, req: RathLLMChatRequest) -> chat_response.RathLLMChatResponse:
        """The client's answer."""
        return self.client.complete(req)

    def dispatch_tool(self, session: Session, tool: Any, arguments: Mapping[str, Any]) -> Any:
        """``tool(session, arguments)``."""
        return tool(session, dict(arguments))

    def tool_schemas(self) -> tuple[RathLLMFunctionTool, ...]:
        """Nothing: the loop offers its own tools."""
        return ()


class StreamingExecutor:
    """Streams each answer from ``client``, passing every delta to ``on_event``."""

    def __init__(
        self,
        client: StreamingChatClient,
        on_event: OnEventCb,
        inner: SessionLoopExecutor | None = None,
    ) -> None:
        self.client = client
        self.on_event = on_event
        self.inner: SessionLoopExecutor = inner or DefaultSessionLoopExecutor(client)

    def complete(self, req: RathLLMChatRequest) -> chat_response.RathLLMChatResponse:
        """Drain the stream, forwarding each delta; the folded answer."""
        fold = StreamFold()
        for delta in self.client.complete_stream(req):
            self.on_event(delta)
            fold.add(delta)
        return folded_response(fold, model=req.model or "")

    def dispatch_tool(self, session: Session, tool: Any, arguments: Mapping[str, Any]) -> Any:
        """The inner executor's dispatch."""
        return self.inner.dispatch_tool(session, tool, arguments)

    def tool_schemas(self) -> tuple[RathLLMFunctionTool, ...]:
        """The inner executor's schemas."""
        return self.inner.tool_schemas()


def resolve_executor(
    *,
    agent_provider: Provider,
    executor: SessionLoopExecutor | None,
    on_event: OnEventCb | None,
) -> SessionLoopExecutor:
    """The executor a loop uses: ``executor``, else one over the provider's direct client.

    Raises:
        ConfigError: Both ``executor`` and ``on_event`` (a ``ValueError``), or no key.
    """
    if executor is not None and on_event is not None:
        raise ConfigError("on_event with a custom executor is not supported")
    if executor is not None:
        return executor
    client = chat_client_for(agent_provider)
    if on_event is None:
        return DefaultSessionLoopExecutor(client)
    if not isinstance(client, StreamingChatClient):
        raise not_streaming(type(client).__name__, agent_provider)
    return StreamingExecutor(client, on_event)


def folded_response(fold: StreamFold, *, model: str) -> chat_response.RathLLMChatResponse:
    """One response from a stream's folded deltas (OpenRath's folding rules)."""
    answer = next(iter(fold.rounds.values()), None)
    content = answer.content if answer is not None else ""
    calls = tuple(
        chat_response.tool_call_part(call.id or "", call.name, call.arguments)
        for _, call in sorted((answer.tool_calls if answer is not None else {}).items())
    )
    reason = answer.finish_reason if answer is not None else None
    usage = answer.usage if answer is not None else None
    message = chat_response.RathLLMAssistantMessage(
        content=content or None, tool_calls=calls or None
    )
    return chat_response.RathLLMChatResponse(
        id="",
        choices=(
            chat_response.RathLLMChatChoice(
                index=0,
                finish_reason=_finish_reason(reason, has_calls=bool(calls)),
                message=message,
            ),
        ),
        created=0,
        model=model,
        usage=None
        if usage is None
        else chat_response.RathLLMTokenUsage(
            usage.prompt_tokens, usage.completion_tokens, usage.total_tokens
        ),
    )


def _finish_reason(reason: str | None, *, has_calls: bool) -> chat_response.RathLLMFinishReason:
    """The stream's last finish reason (unknown ones read as ``stop``), else by the calls."""
    if reason in chat_response.FINISH_REASONS:
        return cast(chat_response.RathLLMFinishReason, reason)
    if reason is None and has_calls:
        return "tool_calls"
    return "stop"
