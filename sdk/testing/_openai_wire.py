"""How the fake server writes a :class:`Reply` in the OpenAI Chat Completions protocol."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from typing import Any

from rath.testing._replies import Reply

_ids = itertools.count(1)

_ERROR_KINDS = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("permission_error", None),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}


class OpenAIWire:
    """The OpenAI Chat Completions wire: ``POST /v1/chat/completions``, ``GET /v1/models``."""

    name: str = "openai"
    base_path: str = "/v1"
    post_paths: tuple[str, ...] = ("/v1/chat/completions", "/chat/completions")
    models_paths: tuple[str, ...] = ("/v1/models", "/models")

    def accepts(self, path: str) -> bool:
        """The Chat Completions paths, Azure OpenAI's included.

        Azure's are ``/openai/deployments/<model>/chat/completions`` and
        ``/openai/v1/chat/completions``.
        """
        azure = path.startswith("/openai/") and path.endswith("/chat/completions")
        return path in self.post_paths or azure

    def body(self, reply: Reply, model: str) -> dict[str, Any]:
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

    def events(self, reply: Reply, model: str, request: dict[str, Any]) -> list[bytes]:
        """The server-sent-event frames of a streamed reply, ``data: [DONE]`` last."""
        include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
        frames = [f"data: {json.dumps(c)}\n\n".encode() for c in _chunks(reply, model)]
        usage = _usage(reply)
        if include_usage and usage is not None:
            final: dict[str, Any] = {"id": f"chatcmpl-fake{next(_ids)}"}
            final |= {"object": "chat.completion.chunk"}
            final |= {"created": int(time.time()), "model": model, "choices": [], "usage": usage}
            frames.append(f"data: {json.dumps(final)}\n\n".encode())
        frames.append(b"data: [DONE]\n\n")
        return frames

    def error(self, status: int, message: str) -> dict[str, Any]:
        """``{"error": {"message", "type", "code", "param"}}``, as OpenAI answers."""
        kind, code = _ERROR_KINDS.get(status, ("server_error", None))
        return {"error": {"message": message, "type": kind, "code": code, "param": None}}

    def models(self, model: str) -> dict[str, Any]:
        """The ``GET /v1/models`` listing: one model."""
        entry = {"id": model, "object": "model", "created": 0, "owned_by": "rath"}
        return {"object": "list", "data": [entry]}


def pieces(text: str, count: int = 3) -> list[str]:
    """``text`` in about ``count`` consecutive pieces (how the fake servers stream it)."""
    size = max(1, -(-len(text) // count))
    return [text[i : i + size] for i in range(0, len(text), size)]


def _usage(reply: Reply) -> dict[str, int] | None:
    if reply.usage is None:
        return None
    prompt, completion = reply.usage
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _chunks(reply: Reply, model: str) -> Iterator[dict[str, Any]]:
    base: dict[str, Any] = {"id": f"chatcmpl-fake{next(_ids)}", "object": "chat.completion.chunk"}
    base |= {"created": int(time.time()), "model": model}

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return base | {"choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}

    yield chunk({"role": "assistant", "content": "" if reply.content is not None else None})
    for piece in pieces(reply.content or ""):
        yield chunk({"content": piece})
    for index, (id_, name, args) in enumerate(reply.tool_calls):
        head = {"index": index, "id": id_, "type": "function"}
        yield chunk({"tool_calls": [head | {"function": {"name": name, "arguments": ""}}]})
        for piece in pieces(args):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, reply.finish_reason)
