"""OpenRath's Anthropic translation table: requests, responses and stream events, as pure functions.

Exactly OpenRath's, apart on purpose from the durable loop's wire (docs/openrath.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from rath.errors import ConfigError
from rath.llm.chat_request import RathLLMChatRequest, RathLLMFunctionTool, RathLLMMessage
from rath.llm.chat_response import (
    RathLLMAssistantMessage,
    RathLLMChatChoice,
    RathLLMChatResponse,
    RathLLMFinishReason,
    RathLLMStreamDelta,
    RathLLMTokenUsage,
    RathLLMToolCallFunction,
    RathLLMToolCallPart,
)
from rath.llm.tool_args import parse_tool_arguments

_DEFAULT_MAX_TOKENS = 4096

_FINISH_REASONS: dict[str, RathLLMFinishReason] = {
    "end_turn": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "stop_sequence": "stop",
}
"""Anthropic stop reasons OpenRath mapped; any other reason is ``"stop"``."""

_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


def build_anthropic_kwargs(req: RathLLMChatRequest, *, default_model: str | None) -> dict[str, Any]:
    """``messages.create`` keywords for ``req``, by OpenRath's translation table.

    System and developer messages join ``system`` (with blank lines); ``tool`` messages become
    ``user`` messages with a ``tool_result`` block; assistant tool calls become ``tool_use``
    blocks; other messages keep their text as a string, one message each. ``max_tokens`` is
    the request's ``max_tokens``, else ``max_completion_tokens``, else 4096; ``tool_choice``
    is always mapped; ``metadata`` passes as given; ``extra_create_args`` are merged last,
    without ``stream``.

    Raises:
        ConfigError: No model anywhere (a ``ValueError``: "model is required").
    """
    return _create_kwargs(req, default_model=default_model)


def build_anthropic_stream_kwargs(
    req: RathLLMChatRequest, *, default_model: str | None
) -> dict[str, Any]:
    """The same keywords as :func:`build_anthropic_kwargs`, for a streamed answer.

    As in OpenRath there is no ``stream`` key: ``messages.stream`` takes ``messages.create``'s
    keywords; a caller of ``messages.create`` adds ``stream=True`` itself.
    """
    return _create_kwargs(req, default_model=default_model)


def normalize_anthropic_response(payload: Any) -> RathLLMChatResponse:
    """A :class:`RathLLMChatResponse` from a Messages API ``message`` (SDK object or dict).

    Text blocks are joined with newlines; ``tool_use`` blocks become tool calls with JSON
    arguments; the stop reason maps ``end_turn``/``stop_sequence`` to ``stop``, ``max_tokens``
    to ``length`` and ``tool_use`` to ``tool_calls`` (anything else: ``stop``). Usage is
    ``None`` when it reports no tokens; ``created`` is 0.
    """
    data: dict[str, Any] = payload.model_dump() if hasattr(payload, "model_dump") else dict(payload)
    blocks = [b for b in data.get("content") or () if isinstance(b, dict)]
    texts = [str(b.get("text") or "") for b in blocks if b.get("type") == "text"]
    calls = tuple(_tool_call(b) for b in blocks if b.get("type") == "tool_use")
    usage = data.get("usage") or {}
    prompt, completion = int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
    return RathLLMChatResponse(
        id=str(data.get("id") or ""),
        choices=(
            RathLLMChatChoice(
                index=0,
                finish_reason=_finish_reason(data.get("stop_reason")),
                message=RathLLMAssistantMessage(
                    content="\n".join(texts) if texts else None, tool_calls=calls or None
                ),
            ),
        ),
        created=0,
        model=str(data.get("model") or ""),
        usage=None
        if prompt == 0 and completion == 0
        else RathLLMTokenUsage(prompt, completion, prompt + completion),
        raw=payload,
    )


def _tool_call(block: dict[str, Any]) -> RathLLMToolCallPart:
    arguments = block.get("input") or {}
    return RathLLMToolCallPart(
        id=str(block.get("id") or ""),
        type="function",
        function=RathLLMToolCallFunction(
            name=str(block.get("name") or ""),
            arguments=json.dumps(arguments, ensure_ascii=False),
            arguments_parsed=dict(arguments) if isinstance(arguments, dict) else None,
            arguments_parse_error=False,
        ),
    )


def anthropic_event_to_deltas(event: Any) -> list[RathLLMStreamDelta]:
    """The deltas one stream event carries, read on its own (an SDK event or its dict).

    ``content_block_start`` of a ``tool_use`` block: its index, id and name;
    ``text_delta``: the text; ``input_json_delta``: its index and JSON fragment;
    ``message_delta``: a finish-reason delta when ``delta.stop_reason`` is set, then a separate
    usage delta (input/output tokens as prompt/completion) when tokens are reported. Empty
    fragments and all other events (``message_start``, ``ping``, ...) give no deltas.
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


def _finish_reason(stop_reason: object) -> RathLLMFinishReason:
    """OpenAI's finish reason for an Anthropic ``stop_reason`` (unknown or missing: ``stop``)."""
    return _FINISH_REASONS.get(stop_reason if isinstance(stop_reason, str) else "", "stop")


def _create_kwargs(req: RathLLMChatRequest, *, default_model: str | None) -> dict[str, Any]:
    model = req.model or default_model
    if not model:
        raise ConfigError("model is required: set RathLLMChatRequest.model or Provider.model")
    system = [m for m in req.messages if m.role in ("system", "developer")]
    kwargs: dict[str, Any] = {
        "model": model,
        "messages": [_message(m) for m in req.messages if m.role not in ("system", "developer")],
        "max_tokens": req.max_tokens or req.max_completion_tokens or _DEFAULT_MAX_TOKENS,
    }
    if system:
        kwargs["system"] = "\n\n".join(t for t in (_text(m.content) for m in system) if t)
    kwargs.update(_sampling(req))
    if req.tools:
        kwargs["tools"] = [_tool(t) for t in req.tools]
    choice = _tool_choice(req.tool_choice)
    if choice is not None:
        kwargs["tool_choice"] = choice
    kwargs.update({k: v for k, v in req.extra_create_args.items() if k != "stream"})
    return kwargs


def _tool_choice(choice: object) -> Any:
    """Anthropic's ``tool_choice`` for OpenAI's, or ``None`` to leave it out.

    ``auto``/empty/``None`` -> omitted, ``none`` -> ``{"type": "none"}``, ``required`` ->
    ``{"type": "any"}``, a named function -> ``{"type": "tool", "name": ...}``; any other
    mapping is taken to be Anthropic's form already and passes through.
    """
    if choice == "none":
        return {"type": "none"}
    if choice == "required":
        return {"type": "any"}
    if not isinstance(choice, Mapping):
        return None
    name = (choice.get("function") or {}).get("name") if choice.get("type") == "function" else None
    return {"type": "tool", "name": name} if name else choice


def _sampling(req: RathLLMChatRequest) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if req.temperature is not None:
        out["temperature"] = req.temperature
    if req.top_p is not None:
        out["top_p"] = req.top_p
    if req.stop is not None:
        out["stop_sequences"] = [req.stop] if isinstance(req.stop, str) else list(req.stop)
    if req.metadata is not None:
        out["metadata"] = req.metadata
    return out


def _message(message: RathLLMMessage) -> dict[str, Any]:
    if message.role == "tool":
        result = {
            "type": "tool_result",
            "tool_use_id": message.tool_call_id or "",
            "content": _text(message.content),
        }
        return {"role": "user", "content": [result]}
    if message.role == "assistant" and message.tool_calls:
        blocks = [{"type": "text", "text": _text(message.content)}] if message.content else []
        return {"role": "assistant", "content": blocks + [_tool_use(c) for c in message.tool_calls]}
    role = message.role if message.role in ("user", "assistant") else "user"
    return {"role": role, "content": _text(message.content)}


def _tool_use(call: Mapping[str, Any]) -> dict[str, Any]:
    function = call.get("function") or {}
    arguments, _ = parse_tool_arguments(function.get("arguments") or "")
    return {
        "type": "tool_use",
        "id": call.get("id") or "",
        "name": function.get("name") or "",
        "input": arguments or {},
    }


def _text(content: object) -> str:
    """Content as plain text (OpenRath's messages carry strings; parts are joined as text)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "\n".join(str(part) for part in content)
    return str(content)


def _tool(tool: RathLLMFunctionTool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": tool.name,
        "input_schema": dict(tool.parameters or _EMPTY_SCHEMA),
    }
    if tool.description is not None:
        out["description"] = tool.description
    return out


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
        out.append(RathLLMStreamDelta(finish_reason=_finish_reason(stop)))
    # OpenRath read usage inside ``delta``; the API sends it beside ``delta``, so take either.
    usage = delta.get("usage") or data.get("usage")
    if isinstance(usage, Mapping):
        prompt = int(usage.get("input_tokens") or 0)
        completion = int(usage.get("output_tokens") or 0)
        if prompt or completion:
            tokens = RathLLMTokenUsage(
                prompt_tokens=prompt,
                completion_tokens=completion,
                total_tokens=prompt + completion,
            )
            out.append(RathLLMStreamDelta(usage=tokens))
    return out
