"""Reading a streamed Anthropic message: events in, deltas out, then the whole answer.

Tool calls count 0, 1, ... in ``tool_use`` order; usage comes once, with ``message_delta``,
input (cache included) plus output tokens (docs/providers.md, "Streaming").
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rath.llm._anthropic_wire import (
    RAW_INPUT,
    STOP_REASONS,
    _usage,
    finish_reason,
    openrath_usage,
)
from rath.llm.chat_response import RathLLMStreamDelta
from rath.llm.stream import StreamAnswer


class AnthropicStreamAnswer(StreamAnswer):
    """The answer so far of one streamed Messages call."""

    def __init__(self, *, where: str, model: str) -> None:
        super().__init__(where=where, model=model)
        self._message: dict[str, Any] = {}
        self._blocks: dict[int, dict[str, Any]] = {}
        self._json: dict[int, str] = {}
        self._calls: dict[int, int] = {}  # block index -> tool-call index
        self._usage: dict[str, Any] = {}
        self._stop_reason: str | None = None
        self._stopped = False

    def feed(self, event: object) -> list[RathLLMStreamDelta]:
        """Take one stream event; return the deltas it carries.

        Raises:
            ValueError: The event is not a JSON object.
        """
        if not isinstance(event, dict):
            raise ValueError(f"a stream event is not a JSON object: {str(event)[:80]}")
        kind = event.get("type")
        if kind == "message_start":
            self._message = dict(event.get("message") or {})
            self._usage = dict(self._message.get("usage") or {})
        elif kind == "content_block_start":
            return self._start(int(event.get("index") or 0), dict(event["content_block"]))
        elif kind == "content_block_delta":
            return self._delta(int(event.get("index") or 0), event.get("delta") or {})
        elif kind == "message_delta":
            return self._finish(event)
        elif kind == "message_stop":
            self._stopped = True
        return []

    def _start(self, index: int, block: dict[str, Any]) -> list[RathLLMStreamDelta]:
        self._blocks[index] = block
        if block.get("type") == "text":
            text = str(block.get("text") or "")
            block["text"] = text
            return [RathLLMStreamDelta(content_delta=text)] if text else []
        if block.get("type") != "tool_use":
            return []
        call = self._calls[index] = len(self._calls)
        self._json[index] = ""
        return [
            RathLLMStreamDelta(
                tool_call_index=call,
                tool_call_id=block.get("id") or None,
                tool_call_name_delta=block.get("name") or None,
            )
        ]

    def _delta(self, index: int, delta: dict[str, Any]) -> list[RathLLMStreamDelta]:
        block = self._blocks.get(index)
        if block is None:
            raise ValueError(f"a content_block_delta for block {index}, which never started")
        if delta.get("type") == "text_delta":
            text = str(delta.get("text") or "")
            block["text"] = str(block.get("text") or "") + text
            return [RathLLMStreamDelta(content_delta=text)] if text else []
        if delta.get("type") == "input_json_delta" and index in self._calls:
            piece = str(delta.get("partial_json") or "")
            self._json[index] += piece
            if piece:
                return [
                    RathLLMStreamDelta(
                        tool_call_index=self._calls[index], tool_call_args_delta=piece
                    )
                ]
        return []

    def _finish(self, event: dict[str, Any]) -> list[RathLLMStreamDelta]:
        self._stop_reason = (event.get("delta") or {}).get("stop_reason") or self._stop_reason
        self._usage.update({k: v for k, v in (event.get("usage") or {}).items() if v is not None})
        reason = STOP_REASONS.get(str(self._stop_reason))
        if reason is None:
            reason = "tool_calls" if self._calls else "stop"
        return [RathLLMStreamDelta(finish_reason=reason, usage=_usage(self._usage))]

    def answer(self) -> dict[str, Any]:
        """The whole answer as a Messages ``message`` object.

        Raises:
            ProviderError: The stream ended before ``message_stop`` (retryable).
        """
        if not self._stopped:
            raise self._ended_early("message_stop")
        content = []
        for index, block in sorted(self._blocks.items()):
            if index in self._calls:
                content.append({**block, **_tool_input(self._json[index])})
            else:
                content.append(block)
        return {
            **self._message,
            "content": content,
            "stop_reason": self._stop_reason,
            "usage": self._usage,
        }


def _tool_input(raw: str) -> dict[str, Any]:
    """A ``tool_use`` input; arguments that are not JSON (cut off) stay raw under RAW_INPUT.

    The model then hears of them as a tool error, as on the OpenAI wire, instead of an attempt
    failing that would only be cut off again.
    """
    if not raw.strip():
        return {"input": {}}
    try:
        return {"input": json.loads(raw)}
    except ValueError:
        return {"input": {}, RAW_INPUT: raw}


def anthropic_event_to_deltas(event: Any) -> list[RathLLMStreamDelta]:
    """OpenRath's deltas of one stream event, read on its own (an SDK event or its dict).

    A ``tool_use`` block's start (index, id, name), text and JSON fragments, and from
    ``message_delta`` a finish-reason delta then a usage delta; empty fragments and other events
    give none.
    """
    data = _event_payload(event)
    kind = data.get("type")
    if kind == "content_block_start":
        return _block_start(data)
    if kind == "content_block_delta":
        return _block_delta(data)
    if kind == "message_delta":
        return _message_delta(data)
    return []


def _event_payload(event: object) -> Mapping[str, Any]:
    dump = getattr(event, "model_dump", None)
    if callable(dump):
        data = dump(mode="json")
        return data if isinstance(data, Mapping) else {}
    if isinstance(event, Mapping):
        return event
    kind = getattr(event, "type", None)
    return {"type": kind} if kind else {}


def _index(data: Mapping[str, Any]) -> int:
    index = data.get("index")
    return index if isinstance(index, int) else 0


def _block_start(data: Mapping[str, Any]) -> list[RathLLMStreamDelta]:
    block = data.get("content_block") or {}
    if block.get("type") != "tool_use":
        return []
    return [
        RathLLMStreamDelta(
            tool_call_index=_index(data),
            tool_call_id=str(block.get("id") or ""),
            tool_call_name_delta=str(block.get("name") or ""),
        )
    ]


def _block_delta(data: Mapping[str, Any]) -> list[RathLLMStreamDelta]:
    delta = data.get("delta") or {}
    text, partial = delta.get("text"), delta.get("partial_json")
    if delta.get("type") == "text_delta" and isinstance(text, str) and text:
        return [RathLLMStreamDelta(content_delta=text)]
    if delta.get("type") == "input_json_delta" and isinstance(partial, str) and partial:
        return [RathLLMStreamDelta(tool_call_index=_index(data), tool_call_args_delta=partial)]
    return []


def _message_delta(data: Mapping[str, Any]) -> list[RathLLMStreamDelta]:
    delta = data.get("delta") or {}
    out: list[RathLLMStreamDelta] = []
    stop = delta.get("stop_reason")
    if isinstance(stop, str):
        out.append(RathLLMStreamDelta(finish_reason=finish_reason(stop)))
    # OpenRath read usage inside ``delta``; the API sends it beside ``delta``, so take either.
    usage = delta.get("usage") or data.get("usage")
    tokens = openrath_usage(usage) if isinstance(usage, Mapping) else None
    if tokens is not None:
        out.append(RathLLMStreamDelta(usage=tokens))
    return out
