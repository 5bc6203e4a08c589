"""The durable loop's OpenAI wire: the live request body, and an answer with its fix-ups.

Unlike OpenRath's translation (``rath.llm.openai``), schemas go as given and a missing total
or finish reason is filled in (docs/providers.md, "Custom kinds").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from rath.llm.chat_request import RathLLMChatRequest
from rath.llm.chat_response import (
    FINISH_REASONS,
    RathLLMAssistantMessage,
    RathLLMChatChoice,
    RathLLMChatResponse,
    RathLLMTokenUsage,
    RathLLMToolCallPart,
    tool_call_part,
    usage_from_json,
)
from rath.llm.provider import SAMPLING_FIELDS


def wire_parts(
    req: RathLLMChatRequest,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
    """``req`` as OpenAI chat dicts: its messages, its tools, and its other fields."""
    messages = []
    for m in req.messages:
        message: dict[str, Any] = {"role": m.role, "content": m.content}
        for key in ("name", "tool_call_id", "tool_calls"):
            if getattr(m, key) is not None:
                message[key] = list(m.tool_calls or ()) if key == "tool_calls" else getattr(m, key)
        messages.append(message)
    options = {k: getattr(req, k) for k in SAMPLING_FIELDS if getattr(req, k) is not None}
    if req.model:
        options["model"] = req.model
    options.update(req.extra_create_args)
    return messages, [t.to_openai() for t in req.tools or ()], options


def openai_body(req: RathLLMChatRequest, *, model: str) -> dict[str, Any]:
    """The ``POST /chat/completions`` body (never streaming here)."""
    messages, tools, options = wire_parts(req)
    body: dict[str, Any] = {"model": model, "messages": messages, **options}
    if tools:
        body["tools"] = tools
        body.setdefault("tool_choice", "auto")
    else:
        body.pop("tool_choice", None)
        body.pop("parallel_tool_calls", None)
    return body


def counted_usage(
    prompt: int | None, completion: int | None, total: int | None
) -> RathLLMTokenUsage:
    """A durable call's usage; a missing total is the sum of its parts (budgets read it)."""
    prompt, completion = int(prompt or 0), int(completion or 0)
    return RathLLMTokenUsage(prompt, completion, int(total or 0) or prompt + completion)


def durable_usage(usage: RathLLMTokenUsage | None) -> RathLLMTokenUsage | None:
    """:func:`counted_usage` of a normalised usage (its detail dicts dropped)."""
    if usage is None:
        return None
    return counted_usage(usage.prompt_tokens, usage.completion_tokens, usage.total_tokens)


def openai_answer(answer: object) -> RathLLMChatResponse:
    """A Chat Completions answer (parsed JSON) for the durable loop, with its fix-ups.

    A call without a ``function`` is dropped; see docs/providers.md for the rest.

    Raises:
        ValueError: ``answer`` is not a completion with choices.
    """
    if not isinstance(answer, dict) or not answer.get("choices"):
        raise ValueError("the model returned no choices")
    first = answer["choices"][0]
    message = first.get("message") or {}
    if any(call.get("function") is None for call in message.get("tool_calls") or ()):
        kept = [call for call in message["tool_calls"] if call.get("function") is not None]
        first = {**first, "message": {**message, "tool_calls": kept}}
        answer = {**answer, "choices": [first, *answer["choices"][1:]]}
    response = normalize_chat_completion(answer)
    choice = response.choices[0]
    calls = choice.message.tool_calls
    reason = first.get("finish_reason")
    if not reason:
        choice = dataclasses.replace(choice, finish_reason="tool_calls" if calls else "stop")
    return dataclasses.replace(
        response, choices=(choice, *response.choices[1:]), usage=durable_usage(response.usage)
    )


def normalize_chat_completion(completion: Any) -> RathLLMChatResponse:
    """OpenRath's normaliser: an SDK ``ChatCompletion`` (or its dict) as a response.

    Unknown finish reasons become ``"stop"``; arguments are parsed; a usage block, even empty,
    gives counts; ``raw`` is the completion as JSON.
    """
    data: dict[str, Any] = (
        completion.model_dump(mode="json")
        if hasattr(completion, "model_dump")
        else dict(completion)
    )
    choices = tuple(_choice(c) for c in data.get("choices") or ())
    return RathLLMChatResponse(
        id=str(data.get("id") or ""),
        choices=choices,
        created=int(data.get("created") or 0),
        model=str(data.get("model") or ""),
        object_type=str(data.get("object") or "chat.completion"),
        service_tier=data.get("service_tier"),
        system_fingerprint=data.get("system_fingerprint"),
        usage=_usage(data.get("usage")),
        raw=data,
    )


def _choice(data: Mapping[str, Any]) -> RathLLMChatChoice:
    message = data.get("message") or {}
    calls = tuple(_tool_call(c) for c in message.get("tool_calls") or ())
    reason = data.get("finish_reason")
    return RathLLMChatChoice(
        index=int(data.get("index") or 0),
        finish_reason=reason if reason in FINISH_REASONS else "stop",
        message=RathLLMAssistantMessage(
            content=message.get("content"),
            refusal=message.get("refusal"),
            reasoning_content=message.get("reasoning_content"),
            tool_calls=calls or None,
            function_call=message.get("function_call"),
            annotations=tuple(message["annotations"]) if message.get("annotations") else None,
        ),
        logprobs=data.get("logprobs"),
    )


def _tool_call(data: Mapping[str, Any]) -> RathLLMToolCallPart:
    function = data.get("function") or {}
    return tool_call_part(
        str(data.get("id") or ""),
        str(function.get("name") or ""),
        function.get("arguments") or "",
        kind=str(data.get("type") or "function"),
    )


def _usage(data: Any) -> RathLLMTokenUsage | None:
    return usage_from_json(data) if isinstance(data, Mapping) else None
