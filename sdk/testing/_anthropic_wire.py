"""How the fake server writes a :class:`Reply` in Anthropic's Messages protocol."""

from __future__ import annotations

import itertools
import json
from typing import Any

from rath.testing._openai_wire import pieces
from rath.testing._replies import Reply

_ids = itertools.count(1)

# A reply's finish_reason (OpenAI's names) as Anthropic's stop_reason; Anthropic's own names
# pass through unchanged.
STOP_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


class AnthropicWire:
    """Anthropic's Messages wire: ``POST /v1/messages``, ``GET /v1/models``."""

    name: str = "anthropic"
    base_path: str = ""
    post_paths: tuple[str, ...] = ("/v1/messages",)

    def accepts(self, path: str) -> bool:
        """The Messages path."""
        return path in self.post_paths

    models_paths: tuple[str, ...] = ("/v1/models",)

    def body(self, reply: Reply, model: str) -> dict[str, Any]:
        """The ``message`` JSON object for a completion reply."""
        return _message(reply, model, content=_blocks(reply), stop_reason=_stop_reason(reply))

    def events(self, reply: Reply, model: str, request: dict[str, Any]) -> list[bytes]:
        """The server-sent events of a streamed reply, ``message_stop`` last."""
        events: list[dict[str, Any]] = []
        start = _message(reply, model, content=[], stop_reason=None)
        start["usage"]["output_tokens"] = min(start["usage"]["output_tokens"], 1)
        events.append({"type": "message_start", "message": start})
        for index, block in enumerate(_blocks(reply)):
            head: dict[str, Any]
            if block["type"] == "text":
                head = {"type": "text", "text": ""}
                field, kind, text = "text", "text_delta", block["text"]
            else:
                head = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                field, kind, text = "partial_json", "input_json_delta", json.dumps(block["input"])
            events.append({"type": "content_block_start", "index": index, "content_block": head})
            for piece in pieces(text):
                step = {"type": kind, field: piece}
                events.append({"type": "content_block_delta", "index": index, "delta": step})
            events.append({"type": "content_block_stop", "index": index})
        output = reply.usage[1] if reply.usage else 0
        delta = {"stop_reason": _stop_reason(reply), "stop_sequence": None}
        events.append({"type": "message_delta", "delta": delta, "usage": {"output_tokens": output}})
        events.append({"type": "message_stop"})
        return [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events]

    def error(self, status: int, message: str) -> dict[str, Any]:
        """``{"type": "error", "error": {"type", "message"}}``, as Anthropic answers."""
        kind = _ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}

    def models(self, model: str) -> dict[str, Any]:
        """The ``GET /v1/models`` listing: one model."""
        entry = {"type": "model", "id": model, "display_name": model}
        entry["created_at"] = "2025-01-01T00:00:00Z"
        return {"data": [entry], "has_more": False, "first_id": model, "last_id": model}


def _blocks(reply: Reply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.content:
        blocks.append({"type": "text", "text": reply.content})
    for id_, name, args in reply.tool_calls:
        try:
            arguments: Any = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError:
            arguments = args  # a broken server's input; the real API always sends an object
        blocks.append({"type": "tool_use", "id": id_, "name": name, "input": arguments})
    return blocks


def _stop_reason(reply: Reply) -> str:
    return STOP_REASONS.get(reply.finish_reason, reply.finish_reason)


def _message(
    reply: Reply, model: str, *, content: list[dict[str, Any]], stop_reason: str | None
) -> dict[str, Any]:
    prompt, completion = reply.usage or (0, 0)
    return {
        "id": f"msg_fake{next(_ids)}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": prompt, "output_tokens": completion},
    }
