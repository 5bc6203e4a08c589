"""Recorded requests, scripted replies, and their OpenAI Chat Completions wire encoding."""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

_ids = itertools.count(1)


@dataclass(frozen=True)
class RecordedRequest:
    """One chat-completions request as the fake server received it.

    Attributes:
        path: The request path, e.g. ``/v1/chat/completions``.
        headers: Request headers with lower-cased names.
        body: The parsed JSON body.
    """

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

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

    A reply with ``raw`` set is sent verbatim; otherwise it is a chat completion, sent as JSON
    or, when the request asked for ``stream``, as server-sent events.
    """

    status: int = 200
    content: str | None = None
    tool_calls: tuple[tuple[str, str, str], ...] = ()  # (id, name, arguments JSON text)
    finish_reason: str = "stop"
    usage: tuple[int, int] | None = (10, 5)
    raw: bytes | None = None
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()
    gate: threading.Event | None = field(default=None, compare=False)
    gate_timeout: float = 30.0


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


_ERROR_KINDS = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("permission_error", None),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}


def error_reply(
    status: int, message: str = "fake server error", *, headers: dict[str, str] | None = None
) -> Reply:
    """An OpenAI-style error response: ``{"error": {"message", "type", "code"}}``.

    Args:
        status: The HTTP status code.
        message: The error message.
        headers: Extra response headers, e.g. ``{"retry-after": "1"}``.
    """
    kind, code = _ERROR_KINDS.get(status, ("server_error", None))
    body = {"error": {"message": message, "type": kind, "code": code, "param": None}}
    return raw_reply(status, json.dumps(body).encode(), headers=headers)


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


def _usage(reply: Reply) -> dict[str, int] | None:
    if reply.usage is None:
        return None
    prompt, completion = reply.usage
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def completion_body(reply: Reply, model: str) -> dict[str, Any]:
    """The ``chat.completion`` JSON object for a completion reply."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": id_, "type": "function", "function": {"name": name, "arguments": args}}
            for id_, name, args in reply.tool_calls
        ]
    body: dict[str, Any] = {
        "id": f"chatcmpl-fake{next(_ids)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "finish_reason": reply.finish_reason, "message": message}],
    }
    usage = _usage(reply)
    if usage is not None:
        body["usage"] = usage
    return body


def _pieces(text: str, count: int = 3) -> list[str]:
    size = max(1, -(-len(text) // count))
    return [text[i : i + size] for i in range(0, len(text), size)]


def stream_chunks(reply: Reply, model: str, include_usage: bool) -> Iterator[dict[str, Any]]:
    """The ``chat.completion.chunk`` objects of a streamed completion reply, in order."""
    base: dict[str, Any] = {"id": f"chatcmpl-fake{next(_ids)}", "object": "chat.completion.chunk"}
    base |= {"created": int(time.time()), "model": model}

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return base | {"choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}

    yield chunk({"role": "assistant", "content": "" if reply.content is not None else None})
    for piece in _pieces(reply.content or ""):
        yield chunk({"content": piece})
    for index, (id_, name, args) in enumerate(reply.tool_calls):
        head = {"index": index, "id": id_, "type": "function"}
        yield chunk({"tool_calls": [head | {"function": {"name": name, "arguments": ""}}]})
        for piece in _pieces(args):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, reply.finish_reason)
    usage = _usage(reply)
    if include_usage and usage is not None:
        yield base | {"choices": [], "usage": usage}
