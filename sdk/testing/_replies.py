"""Recorded requests and scripted replies, whatever the wire protocol. See docs/modules.md."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class RecordedRequest:
    """One model request as a fake server received it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    query: str = ""

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The ``messages`` array of the request."""
        messages: list[dict[str, Any]] = self.body.get("messages") or []
        return messages

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The ``tools`` array of the request (empty when none were offered)."""
        tools: list[dict[str, Any]] = self.body.get("tools") or []
        return tools

    @property
    def model(self) -> str | None:
        """The requested model name, if any."""
        model = self.body.get("model")
        return model if isinstance(model, str) else None

    @property
    def system(self) -> Any:
        """The Anthropic ``system`` field (a string or text blocks), ``None`` when absent."""
        return self.body.get("system")

    @property
    def api_key(self) -> str | None:
        """The key the client sent: ``x-api-key``, else the ``Authorization: Bearer`` token."""
        key = self.headers.get("x-api-key")
        if key:
            return key
        auth = self.headers.get("authorization", "")
        return auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else None


@dataclass(frozen=True)
class ToolCallSpec:
    """A tool call for :func:`tool_call_reply` with an explicit id."""

    name: str
    arguments: dict[str, Any] | str
    id: str | None = None


@dataclass(frozen=True)
class Reply:
    """What the fake server answers to one request. Build it with the ``*_reply`` helpers."""

    status: int = 200
    content: str | None = None
    tool_calls: tuple[tuple[str, str, str], ...] = ()  # (id, name, arguments JSON text)
    finish_reason: str = "stop"
    usage: tuple[int, int] | None = (10, 5)
    raw: bytes | None = None
    error: str | None = None
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()
    gate: threading.Event | None = field(default=None, compare=False)
    gate_timeout: float = 30.0
    truncate: float | None = None
    hang_up: bool = False


Handler = Callable[[RecordedRequest], Reply]


def text_reply(
    content: str, *, finish_reason: str = "stop", usage: tuple[int, int] | None = (10, 5)
) -> Reply:
    """A plain assistant text completion."""
    return Reply(content=content, finish_reason=finish_reason, usage=usage)


def tool_call_reply(
    *calls: ToolCallSpec | tuple[str, dict[str, Any] | str],
    content: str | None = None,
    usage: tuple[int, int] | None = (10, 5),
) -> Reply:
    """An assistant completion that calls tools (``finish_reason="tool_calls"``)."""
    encoded: list[tuple[str, str, str]] = []
    for index, call in enumerate(calls):
        spec = call if isinstance(call, ToolCallSpec) else ToolCallSpec(call[0], call[1])
        args = spec.arguments if isinstance(spec.arguments, str) else json.dumps(spec.arguments)
        encoded.append((spec.id or f"call_{index}_{spec.name}", spec.name, args))
    return Reply(
        content=content, tool_calls=tuple(encoded), finish_reason="tool_calls", usage=usage
    )


def error_reply(
    status: int, message: str = "fake server error", *, headers: dict[str, str] | None = None
) -> Reply:
    """An error response in the server's protocol (OpenAI: ``{"error": {"message", ...}}``)."""
    return Reply(status=status, error=message, headers=tuple((headers or {}).items()))


def raw_reply(
    status: int,
    body: bytes,
    *,
    headers: dict[str, str] | None = None,
    content_type: str = "application/json",
) -> Reply:
    """A response sent byte for byte, e.g. a malformed JSON body."""
    return Reply(
        status=status,
        raw=body,
        content_type=content_type,
        headers=tuple((headers or {}).items()),
    )


def truncated(reply: Reply, keep: float = 0.5) -> Reply:
    """Send only the first ``keep`` fraction of ``reply``, then close the connection."""
    return replace(reply, truncate=min(max(keep, 0.0), 1.0))


def hung_up() -> Reply:
    """Close the connection without answering, as a server that stops mid-request does."""
    return Reply(hang_up=True)


def gated(reply: Reply, event: threading.Event, timeout: float = 30.0) -> Reply:
    """Hold ``reply`` until ``event`` is set; after ``timeout`` seconds answer HTTP 500 instead."""
    return replace(reply, gate=event, gate_timeout=timeout)


def scripted(*replies: Reply) -> Handler:
    """A handler answering with ``replies`` in order, then HTTP 500 "script exhausted"."""
    lock = threading.Lock()
    calls = itertools.count(1)

    def handle(request: RecordedRequest) -> Reply:
        with lock:
            number = next(calls)
        if number <= len(replies):
            return replies[number - 1]
        return error_reply(
            500,
            f"FakeChatServer script exhausted: {len(replies)} replies scripted, "
            f"this is request {number}",
        )

    return handle


def function_handler(fn: Callable[[RecordedRequest], Reply | str]) -> Handler:
    """Wrap a function as a handler; a returned ``str`` becomes a :func:`text_reply`."""

    def handle(request: RecordedRequest) -> Reply:
        result = fn(request)
        return text_reply(result) if isinstance(result, str) else result

    return handle


def as_handler(handler: Handler | Sequence[Reply]) -> Handler:
    """Turn the ``FakeChatServer`` argument into a handler (a sequence means scripted)."""
    return handler if callable(handler) else scripted(*handler)
