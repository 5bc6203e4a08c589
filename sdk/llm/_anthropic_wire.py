"""Anthropic's Messages API translations, as pure functions: the live wire and OpenRath's table.

The durable loop sends the live wire (docs/providers.md, "Anthropic"); OpenRath's table is
kept exactly, apart on purpose (docs/openrath.md).
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
    RathLLMTokenUsage,
    RathLLMToolCallFunction,
    RathLLMToolCallPart,
    tool_call_part,
)
from rath.llm.provider import SAMPLING_FIELDS
from rath.llm.tool_args import parse_tool_arguments

DEFAULT_MAX_TOKENS = 4096
CONTINUE_TEXT = "(continue)"

STOP_REASONS: dict[str, RathLLMFinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}
# OpenAI request fields with no Anthropic equivalent, and those mapped by hand below.
_NOT_FORWARDED = frozenset(SAMPLING_FIELDS) - {"temperature", "top_p"}

RAW_INPUT = "rath_raw_input"
"""Key of a streamed ``tool_use`` block whose arguments did not parse (kept as text)."""


def anthropic_request(
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    *,
    model: str,
    options: dict[str, Any],
) -> dict[str, Any]:
    """The ``POST /v1/messages`` body for OpenAI-style ``messages`` and ``tools``."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role in ("system", "developer"):
            text = _text_of(message.get("content"))
            if text:
                system.append(text)
            continue
        role, blocks = _turn(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    for turn in turns:
        if turn["role"] == "user":
            # Stable: tool results first (the API requires it), everything else after.
            turn["content"].sort(key=lambda block: block.get("type") != "tool_result")
    if turns and turns[-1]["role"] == "assistant":
        turns.append({"role": "user", "content": [{"type": "text", "text": CONTINUE_TEXT}]})
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": options.get("max_tokens")
        or options.get("max_completion_tokens")
        or DEFAULT_MAX_TOKENS,
        "messages": turns,
    }
    if system:
        body["system"] = "\n\n".join(system)
    if tools:
        body["tools"] = [_tool(tool) for tool in tools]
        choice = _tool_choice(options.get("tool_choice"), options.get("parallel_tool_calls"))
        if choice is not None:
            body["tool_choice"] = choice
    stop = options.get("stop")
    if stop:
        body["stop_sequences"] = [stop] if isinstance(stop, str) else list(stop)
    metadata = options.get("metadata")
    if isinstance(metadata, dict) and set(metadata) == {"user_id"}:
        body["metadata"] = metadata
    if options.get("user"):
        body["metadata"] = {"user_id": options["user"]}
    body.update({k: v for k, v in options.items() if k not in _NOT_FORWARDED and v is not None})
    return body


def anthropic_completion(message: object) -> RathLLMChatResponse:
    """A Messages API ``message`` (parsed JSON) for the durable loop.

    Raises:
        ValueError: ``message`` is not a message object (no ``content`` list).
    """
    if not isinstance(message, dict) or not isinstance(message.get("content"), list):
        raise ValueError("the answer is not a message with a content list")
    texts: list[str] = []
    calls: list[RathLLMToolCallPart] = []
    for block in message["content"]:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            texts.append(str(block.get("text") or ""))
        elif kind == "tool_use":
            raw = block.get(RAW_INPUT)
            arguments = (
                raw if raw is not None else json.dumps(block.get("input", {}), ensure_ascii=False)
            )
            name = str(block.get("name") or "")
            calls.append(tool_call_part(str(block.get("id") or ""), name, arguments))
    reason = STOP_REASONS.get(str(message.get("stop_reason")))
    reason = reason or ("tool_calls" if calls else "stop")
    content = "".join(texts) if texts else None
    return _response(message, content, calls, reason, usage=_usage(message.get("usage")))


def _response(
    data: dict[str, Any],
    content: str | None,
    calls: Sequence[RathLLMToolCallPart],
    reason: RathLLMFinishReason,
    *,
    usage: RathLLMTokenUsage | None,
    raw: Any = None,
) -> RathLLMChatResponse:
    message = RathLLMAssistantMessage(content=content, tool_calls=tuple(calls) or None)
    return RathLLMChatResponse(
        id=str(data.get("id") or ""),
        choices=(RathLLMChatChoice(index=0, finish_reason=reason, message=message),),
        created=0,
        model=str(data.get("model") or ""),
        usage=usage,
        raw=data if raw is None else raw,
    )


def _turn(message: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    role = message.get("role")
    if role == "tool":
        result = {
            "type": "tool_result",
            "tool_use_id": message.get("tool_call_id") or "",
            "content": _result_content(message.get("content")),
        }
        return "user", [result]
    if role == "assistant":
        blocks = _blocks(message.get("content"))
        blocks += [_openrath_tool_use(call) for call in message.get("tool_calls") or ()]
        return "assistant", blocks
    return "user", _blocks(message.get("content"))


def _blocks(content: Any) -> list[dict[str, Any]]:
    """Content blocks for an OpenAI ``content`` (a string, parts, or ``None``)."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks: list[dict[str, Any]] = []
    for part in content:
        kind = part.get("type")
        if kind == "text":
            if part.get("text"):
                blocks.append({"type": "text", "text": part["text"]})
        elif kind == "image_url":
            blocks.append(_image(part["image_url"]["url"]))
        else:
            blocks.append(dict(part))  # a native Anthropic block (document, image, ...)
    return blocks


def _image(url: str) -> dict[str, Any]:
    if url.startswith("data:") and ";base64," in url:
        media_type, data = url[5:].split(";base64,", 1)
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": media_type, "data": data},
        }
    return {"type": "image", "source": {"type": "url", "url": url}}


def _result_content(content: Any) -> Any:
    if content is None or isinstance(content, str):
        return content or ""
    return _blocks(content)


def _text_of(content: Any) -> str:
    if content is None or isinstance(content, str):
        return content or ""
    return "\n".join(str(p.get("text") or "") for p in content if p.get("type") == "text")


def _tool(tool: dict[str, Any]) -> dict[str, Any]:
    function = tool.get("function", tool)
    out: dict[str, Any] = {
        "name": function["name"],
        "input_schema": function.get("parameters") or {"type": "object", "properties": {}},
    }
    if function.get("description"):
        out["description"] = function["description"]
    return out


def _tool_choice(choice: Any, parallel: Any) -> dict[str, Any] | None:
    mapped: dict[str, Any] | None
    if choice in (None, "", "auto"):
        mapped = {"type": "auto"} if parallel is False else None
    elif choice == "none":
        return {"type": "none"}
    elif choice == "required":
        mapped = {"type": "any"}
    elif isinstance(choice, dict) and choice.get("type") == "function":
        mapped = {"type": "tool", "name": (choice.get("function") or {}).get("name", "")}
    elif isinstance(choice, dict):
        mapped = dict(choice)  # already Anthropic's form
    else:
        mapped = None
    if mapped is not None and parallel is False:
        mapped["disable_parallel_tool_use"] = True
    return mapped


def _usage(usage: Any) -> RathLLMTokenUsage | None:
    if not isinstance(usage, dict):
        return None
    # With prompt caching, input_tokens counts only the uncached part of the prompt.
    prompt = sum(
        int(usage.get(name) or 0)
        for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )
    completion = int(usage.get("output_tokens") or 0)
    return RathLLMTokenUsage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    )


# OpenRath's table

_FINISH_REASONS: dict[str, RathLLMFinishReason] = {
    "end_turn": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "stop_sequence": "stop",
}
"""Anthropic stop reasons OpenRath mapped; any other reason is ``"stop"``."""

_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


def build_anthropic_kwargs(req: RathLLMChatRequest, *, default_model: str | None) -> dict[str, Any]:
    """``messages.create`` keywords for ``req``, by OpenRath's table (docs/openrath.md).

    Raises:
        ConfigError: No model anywhere (a ``ValueError``: "model is required").
    """
    return _openrath_kwargs(req, default_model=default_model)


def build_anthropic_stream_kwargs(
    req: RathLLMChatRequest, *, default_model: str | None
) -> dict[str, Any]:
    """:func:`build_anthropic_kwargs` for a stream (no ``stream`` key, as OpenRath's)."""
    return _openrath_kwargs(req, default_model=default_model)


def normalize_anthropic_response(payload: Any) -> RathLLMChatResponse:
    """OpenRath's normaliser of a Messages ``message`` (docs/providers.md, "Anthropic")."""
    data: dict[str, Any] = payload.model_dump() if hasattr(payload, "model_dump") else dict(payload)
    blocks = [b for b in data.get("content") or () if isinstance(b, dict)]
    texts = [str(b.get("text") or "") for b in blocks if b.get("type") == "text"]
    calls = tuple(_openrath_tool_call(b) for b in blocks if b.get("type") == "tool_use")
    usage = openrath_usage(data.get("usage") or {})
    reason = finish_reason(data.get("stop_reason"))
    content = "\n".join(texts) if texts else None
    return _response(data, content, calls, reason, usage=usage, raw=payload)


def _openrath_tool_call(block: dict[str, Any]) -> RathLLMToolCallPart:
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


def finish_reason(stop_reason: object) -> RathLLMFinishReason:
    """OpenAI's finish reason for an Anthropic ``stop_reason`` (unknown or missing: ``stop``)."""
    return _FINISH_REASONS.get(stop_reason if isinstance(stop_reason, str) else "", "stop")


def openrath_usage(usage: Mapping[str, Any]) -> RathLLMTokenUsage | None:
    """OpenRath's usage of an Anthropic ``usage``: input plus output tokens (``None`` if 0)."""
    prompt, completion = int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
    if not (prompt or completion):
        return None
    return RathLLMTokenUsage(prompt, completion, prompt + completion)


def _openrath_kwargs(req: RathLLMChatRequest, *, default_model: str | None) -> dict[str, Any]:
    model = req.model or default_model
    if not model:
        raise ConfigError("model is required: set RathLLMChatRequest.model or Provider.model")
    system = [m for m in req.messages if m.role in ("system", "developer")]
    kwargs: dict[str, Any] = {
        "model": model,
        "messages": [
            _openrath_message(m) for m in req.messages if m.role not in ("system", "developer")
        ],
        "max_tokens": req.max_tokens or req.max_completion_tokens or DEFAULT_MAX_TOKENS,
    }
    if system:
        kwargs["system"] = "\n\n".join(t for t in (_openrath_text(m.content) for m in system) if t)
    kwargs.update(_openrath_sampling(req))
    if req.tools:
        kwargs["tools"] = [_openrath_tool(t) for t in req.tools]
    choice = _openrath_tool_choice(req.tool_choice)
    if choice is not None:
        kwargs["tool_choice"] = choice
    kwargs.update({k: v for k, v in req.extra_create_args.items() if k != "stream"})
    return kwargs


def _openrath_tool_choice(choice: object) -> Any:
    """Anthropic's ``tool_choice`` for OpenAI's (``None``: leave it out; a mapping passes)."""
    if choice == "none":
        return {"type": "none"}
    if choice == "required":
        return {"type": "any"}
    if not isinstance(choice, Mapping):
        return None
    name = (choice.get("function") or {}).get("name") if choice.get("type") == "function" else None
    return {"type": "tool", "name": name} if name else choice


def _openrath_sampling(req: RathLLMChatRequest) -> dict[str, Any]:
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


def _openrath_message(message: RathLLMMessage) -> dict[str, Any]:
    if message.role == "tool":
        result = {
            "type": "tool_result",
            "tool_use_id": message.tool_call_id or "",
            "content": _openrath_text(message.content),
        }
        return {"role": "user", "content": [result]}
    if message.role == "assistant" and message.tool_calls:
        blocks = (
            [{"type": "text", "text": _openrath_text(message.content)}] if message.content else []
        )
        return {
            "role": "assistant",
            "content": blocks + [_openrath_tool_use(c) for c in message.tool_calls],
        }
    role = message.role if message.role in ("user", "assistant") else "user"
    return {"role": role, "content": _openrath_text(message.content)}


def _openrath_tool_use(call: Mapping[str, Any]) -> dict[str, Any]:
    function = call.get("function") or {}
    arguments, _ = parse_tool_arguments(function.get("arguments") or "")
    return {
        "type": "tool_use",
        "id": call.get("id") or "",
        "name": function.get("name") or "",
        "input": arguments or {},
    }


def _openrath_text(content: object) -> str:
    """Content as plain text (OpenRath's messages carry strings; parts are joined as text)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "\n".join(str(part) for part in content)
    return str(content)


def _openrath_tool(tool: RathLLMFunctionTool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": tool.name,
        "input_schema": dict(tool.parameters or _EMPTY_SCHEMA),
    }
    if tool.description is not None:
        out["description"] = tool.description
    return out
