"""Recorded requests and scripted replies, independent of the wire protocol that carries them.

A :class:`Reply` says *what* the model answers (text, tool calls, an error, raw bytes); each fake
server encodes it in its own protocol (``_openai_wire.py``, ``_anthropic_wire.py``).
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class RecordedRequest:
    """One model request as a fake server received it.

    Attributes:
        path: The request path, e.g. ``/v1/chat/completions`` or ``/v1/messages``.
        headers: Request headers with lower-cased names.
        body: The parsed JSON body.
        query: The query string (``api-version=...`` for Azure OpenAI), without the ``?``.
    """

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
    """A tool call for :func:`tool_call_reply` with an explicit id.

    Attributes:
        name: The tool (function) name.
        arguments: A dict (JSON-encoded on the wire) or a string sent verbatim.
        id: The tool call id; ``call_<index>_<name>`` when ``None``.
    """

    name: str
    arguments: dict[str, Any] | str
    id: str | None = None


@dataclass(frozen=True)
class Reply:
    """What the fake server answers to one request. Build it with the ``*_reply`` helpers.

    A reply with ``raw`` set is sent verbatim; one with ``error`` set is an error body in the
    server's protocol; otherwise it is a completion, sent as JSON or, when the request asked
    for ``stream``, as server-sent events. ``finish_reason`` uses OpenAI's names; the Anthropic
    server maps them to ``stop_reason``. With ``truncate`` set, only that fraction of the bytes
    (or of the stream's events) is sent before the connection closes. With ``hang_up`` set, the
    connection closes without any answer.
    """

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
    """A plain assistant text completion.

    Args:
        content: The assistant message text.
        finish_reason: The choice's ``finish_reason``.
        usage: ``(prompt_tokens, completion_tokens)``, or ``None`` to omit ``usage``.
    """
    return Reply(content=content, finish_reason=finish_reason, usage=usage)


def tool_call_reply(
    *calls: ToolCallSpec | tuple[str, dict[str, Any] | str],
    content: str | None = None,
    usage: tuple[int, int] | None = (10, 5),
) -> Reply:
    """An assistant completion that calls tools (``finish_reason="tool_calls"``).

    Args:
        *calls: ``(tool_name, arguments)`` tuples or :class:`ToolCallSpec`. Dict arguments are
            JSON-encoded; string arguments are sent raw, so they may be invalid JSON.
        content: Optional assistant text sent alongside the calls.
        usage: ``(prompt_tokens, completion_tokens)``, or ``None`` to omit ``usage``.
    """
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
    """An error response in the server's protocol (OpenAI: ``{"error": {"message", ...}}``).

    Args:
        status: The HTTP status code.
        message: The error message.
        headers: Extra response headers, e.g. ``{"retry-after": "1"}``.
    """
    return Reply(status=status, error=message, headers=tuple((headers or {}).items()))


def raw_reply(
    status: int,
    body: bytes,
    *,
    headers: dict[str, str] | None = None,
    content_type: str = "application/json",
) -> Reply:
    """A response sent byte for byte, e.g. a malformed JSON body.

    Args:
        status: The HTTP status code.
        body: The exact response body.
        headers: Extra response headers.
        content_type: The ``Content-Type`` header.
    """
    return Reply(
        status=status,
        raw=body,
        content_type=content_type,
        headers=tuple((headers or {}).items()),
    )


def truncated(reply: Reply, keep: float = 0.5) -> Reply:
    """Send only the first ``keep`` fraction of ``reply``, then close the connection.

    A body keeps its full ``Content-Length``, so the client sees a response that ends early;
    a stream stops after that fraction of its events, without its terminating event.

    Args:
        reply: The reply to cut short.
        keep: The fraction (0 to 1) of the bytes or events sent.
    """
    return replace(reply, truncate=min(max(keep, 0.0), 1.0))


def hung_up() -> Reply:
    """Close the connection without answering, as a server that stops mid-request does."""
    return Reply(hang_up=True)


def gated(reply: Reply, event: threading.Event, timeout: float = 30.0) -> Reply:
    """Hold ``reply`` until ``event`` is set; after ``timeout`` seconds answer HTTP 500 instead.

    Args:
        reply: The reply to send once the event is set.
        event: The event the server thread waits on.
        timeout: Upper bound on the wait, in seconds.
    """
    return replace(reply, gate=event, gate_timeout=timeout)


def scripted(*replies: Reply) -> Handler:
    """A handler answering with ``replies`` in order, then HTTP 500 "script exhausted".

    Args:
        *replies: The replies, one per request.
    """
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
    """Wrap a function as a handler; a returned ``str`` becomes a :func:`text_reply`.

    Args:
        fn: Called with each request on the server thread.
    """

    def handle(request: RecordedRequest) -> Reply:
        result = fn(request)
        return text_reply(result) if isinstance(result, str) else result

    return handle


def as_handler(handler: Handler | Sequence[Reply]) -> Handler:
    """Turn the ``FakeChatServer`` argument into a handler (a sequence means scripted)."""
    return handler if callable(handler) else scripted(*handler)
