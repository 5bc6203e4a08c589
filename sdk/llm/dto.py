"""OpenRath's LLM data types: a chat request and response in OpenAI's shape, as values.

Rath's own loop speaks :class:`~rath.llm.ChatRequest` and :class:`~rath.llm.Completion`;
these are the frozen dataclasses OpenRath code builds and reads, used by
:mod:`rath.llm.openai`'s direct client and helpers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from rath.llm.function_tool import RathLLMFunctionTool

RathLLMRole = Literal["system", "user", "assistant", "tool", "developer"]
RathLLMFinishReason = Literal["stop", "length", "tool_calls", "content_filter", "function_call"]

__all__ = [
    "RathLLMAssistantMessage",
    "RathLLMChatChoice",
    "RathLLMChatRequest",
    "RathLLMChatResponse",
    "RathLLMFinishReason",
    "RathLLMFunctionTool",
    "RathLLMMessage",
    "RathLLMRole",
    "RathLLMTokenUsage",
    "RathLLMToolCallFunction",
    "RathLLMToolCallPart",
    "add_usage",
]


@dataclass(frozen=True)
class RathLLMMessage:
    """One message of a request."""

    role: str
    content: str | None = None
    name: str | None = None
    tool_call_id: str | None = None
    tool_calls: tuple[Mapping[str, Any], ...] | None = None


@dataclass(frozen=True, kw_only=True)
class RathLLMChatRequest:
    """A Chat Completions request; ``None`` fields are left out on the wire."""

    messages: Sequence[RathLLMMessage]
    model: str | None = None
    tools: Sequence[RathLLMFunctionTool] | None = None
    tool_choice: str | Mapping[str, Any] | None = None
    parallel_tool_calls: bool | None = None
    response_format: Mapping[str, Any] | None = None
    temperature: float | None = None
    top_p: float | None = None
    max_completion_tokens: int | None = None
    max_tokens: int | None = None
    stop: str | Sequence[str] | None = None
    n: int | None = None
    seed: int | None = None
    frequency_penalty: float | None = None
    presence_penalty: float | None = None
    logit_bias: Mapping[str, int] | None = None
    logprobs: bool | None = None
    top_logprobs: int | None = None
    reasoning_effort: str | None = None
    verbosity: str | None = None
    metadata: Mapping[str, str] | None = None
    user: str | None = None
    store: bool | None = None
    service_tier: str | None = None
    extra_create_args: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class RathLLMTokenUsage:
    """Token counts of one response."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    completion_tokens_details: Mapping[str, Any] | None = None
    prompt_tokens_details: Mapping[str, Any] | None = None


def add_usage(a: RathLLMTokenUsage | None, b: RathLLMTokenUsage | None) -> RathLLMTokenUsage | None:
    """The field-by-field sum of two usages (OpenRath's ``add_usage``).

    ``None`` only when both are; when one is ``None`` the other is returned as it is. The sum
    drops the detail dicts, since per-call breakdowns do not add up.
    """
    if a is None:
        return b
    if b is None:
        return a
    return RathLLMTokenUsage(
        a.prompt_tokens + b.prompt_tokens,
        a.completion_tokens + b.completion_tokens,
        a.total_tokens + b.total_tokens,
    )


@dataclass(frozen=True)
class RathLLMToolCallFunction:
    """A tool call's function: name, raw arguments, and the arguments parsed if they could be."""

    name: str
    arguments: str
    arguments_parsed: dict[str, Any] | None
    arguments_parse_error: bool


@dataclass(frozen=True)
class RathLLMToolCallPart:
    """One tool call of an assistant message."""

    id: str
    type: str
    function: RathLLMToolCallFunction


@dataclass(frozen=True)
class RathLLMAssistantMessage:
    """The assistant's message of a choice."""

    role: str = "assistant"
    content: str | None = None
    refusal: str | None = None
    reasoning_content: str | None = None
    tool_calls: tuple[RathLLMToolCallPart, ...] | None = None
    function_call: Mapping[str, Any] | None = None
    annotations: tuple[Any, ...] | None = None


@dataclass(frozen=True)
class RathLLMChatChoice:
    """One choice of a response."""

    index: int
    finish_reason: RathLLMFinishReason
    message: RathLLMAssistantMessage
    logprobs: Any = None


@dataclass(frozen=True)
class RathLLMChatResponse:
    """A normalised Chat Completions response."""

    id: str
    choices: tuple[RathLLMChatChoice, ...]
    created: int
    model: str
    object_type: str = "chat.completion"
    service_tier: str | None = None
    system_fingerprint: str | None = None
    usage: RathLLMTokenUsage | None = None
    raw: Any = None

    @property
    def primary_choice(self) -> RathLLMChatChoice:
        """The first choice.

        Raises:
            IndexError: The response has no choices.
        """
        if not self.choices:
            raise IndexError("the response has no choices")
        return self.choices[0]
