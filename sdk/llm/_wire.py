"""Translation between Rath's chunks and the OpenAI chat-completions wire format.

Pure functions: no client, no I/O. The OpenAI chat client builds a request with
:func:`build_request` and turns the answer into a :class:`Completion`, the provider-neutral
result every chat client returns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rath.llm.chat_response import RathLLMTokenUsage

FINISHED_REASONS = frozenset({"stop", "length", "content_filter"})
_KNOWN_REASONS = FINISHED_REASONS | {"tool_calls", "function_call"}


@dataclass(frozen=True)
class WireToolCall:
    """One tool call as the model sent it; ``arguments`` is the raw JSON string."""

    id: str
    name: str
    arguments: str

    def as_wire(self) -> dict[str, Any]:
        """The OpenAI wire dict stored in the assistant chunk."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True)
class Completion:
    """The parts of a chat completion the session loop uses."""

    content: str | None
    tool_calls: tuple[WireToolCall, ...]
    finish_reason: str
    usage: RathLLMTokenUsage | None
    model: str


def build_request(
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    *,
    model: str,
    options: dict[str, Any],
) -> dict[str, Any]:
    """Keyword arguments for ``chat.completions.create`` (never streaming here).

    Raises:
        ValueError: ``options`` asks for ``stream`` (streaming has its own path).
    """
    if options.get("stream"):
        raise ValueError("`stream` cannot be set in Provider options; use on_event instead")
    request: dict[str, Any] = {"model": model, "messages": messages, **options}
    if tools:
        request["tools"] = tools
        request.setdefault("tool_choice", "auto")
    else:
        request.pop("tool_choice", None)
        request.pop("parallel_tool_calls", None)
    return request


def counted_usage(
    prompt: int | None, completion: int | None, total: int | None
) -> RathLLMTokenUsage:
    """A durable call's usage; a missing total is the sum of its parts.

    Some compatible servers omit the total, and budgets read it, so a zero there would never
    trip a budget (OpenRath's own normalisers keep the zero).
    """
    prompt, completion = int(prompt or 0), int(completion or 0)
    return RathLLMTokenUsage(prompt, completion, int(total or 0) or prompt + completion)


def normalize_completion(completion: Any, *, round_index: int) -> Completion:
    """Turn an ``openai`` ``ChatCompletion`` into a :class:`Completion`.

    Missing tool-call ids are replaced by stable ones (``call_<round>_<index>``) so every
    tool result can name the call it answers.
    """
    if not completion.choices:
        raise ValueError("the model returned no choices")
    choice = completion.choices[0]
    message = choice.message
    calls = tuple(
        WireToolCall(
            id=call.id or f"call_{round_index}_{index}",
            name=call.function.name,
            arguments=call.function.arguments or "",
        )
        for index, call in enumerate(message.tool_calls or ())
        if getattr(call, "function", None) is not None
    )
    reason = choice.finish_reason or ("tool_calls" if calls else "stop")
    usage = None
    if completion.usage is not None:
        usage = counted_usage(
            completion.usage.prompt_tokens,
            completion.usage.completion_tokens,
            completion.usage.total_tokens,
        )
    return Completion(
        content=message.content,
        tool_calls=calls,
        finish_reason=reason if reason in _KNOWN_REASONS else "stop",
        usage=usage,
        model=completion.model or "",
    )
