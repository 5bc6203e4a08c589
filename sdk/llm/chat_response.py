"""OpenRath's ``rath.llm.chat_response``: a normalised chat response and its usage, as values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

from pydantic import BaseModel, ConfigDict, GetCoreSchemaHandler
from pydantic_core import CoreSchema, core_schema

from rath.llm.tool_args import parse_tool_arguments

RathLLMFinishReason = Literal["stop", "length", "tool_calls", "content_filter", "function_call"]

FINISH_REASONS: frozenset[str] = frozenset(get_args(RathLLMFinishReason))
"""Every :data:`RathLLMFinishReason`: a reason outside it is read as ``"stop"``."""

__all__ = [
    "FINISH_REASONS",
    "RathLLMAssistantMessage",
    "RathLLMChatChoice",
    "RathLLMChatResponse",
    "RathLLMFinishReason",
    "RathLLMStreamDelta",
    "RathLLMTokenUsage",
    "RathLLMToolCallFunction",
    "RathLLMToolCallPart",
    "add_usage",
    "tool_call_part",
    "usage_from_json",
    "usage_json",
]


@dataclass(frozen=True)
class RathLLMTokenUsage:
    """Token counts of one response."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    completion_tokens_details: Mapping[str, Any] | None = None
    prompt_tokens_details: Mapping[str, Any] | None = None

    def __add__(self, other: RathLLMTokenUsage) -> RathLLMTokenUsage:
        """The field-by-field sum; the per-call detail dicts do not add up and are dropped."""
        return RathLLMTokenUsage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.total_tokens + other.total_tokens,
        )

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: type[Any], handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        # In Rath's payloads and records the absent details are left out, so a usage is the
        # three counts that recorded histories hold.
        serialization = core_schema.plain_serializer_function_ser_schema(usage_json)
        return cast(CoreSchema, {**handler(source), "serialization": serialization})


def usage_from_json(data: Mapping[str, Any]) -> RathLLMTokenUsage:
    """The usage :func:`usage_json` wrote (a recorded three-count dict reads back too)."""
    return RathLLMTokenUsage(
        int(data.get("prompt_tokens") or 0),
        int(data.get("completion_tokens") or 0),
        int(data.get("total_tokens") or 0),
        data.get("completion_tokens_details"),
        data.get("prompt_tokens_details"),
    )


def usage_json(usage: RathLLMTokenUsage) -> dict[str, Any]:
    """``usage`` as JSON: the three counts, and the detail dicts that are set."""
    out: dict[str, Any] = {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
    }
    if usage.completion_tokens_details is not None:
        out["completion_tokens_details"] = dict(usage.completion_tokens_details)
    if usage.prompt_tokens_details is not None:
        out["prompt_tokens_details"] = dict(usage.prompt_tokens_details)
    return out


def add_usage(a: RathLLMTokenUsage | None, b: RathLLMTokenUsage | None) -> RathLLMTokenUsage | None:
    """OpenRath's ``add_usage``: the sum (detail dicts dropped), or the one that is not ``None``."""
    if a is None:
        return b
    if b is None:
        return a
    return a + b


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


def tool_call_part(
    call_id: str, name: str, arguments: str, *, kind: str = "function"
) -> RathLLMToolCallPart:
    """A tool call whose raw ``arguments`` are also parsed (OpenRath's parser and its flag)."""
    parsed, error = parse_tool_arguments(arguments)
    return RathLLMToolCallPart(
        call_id, kind, RathLLMToolCallFunction(name, arguments, parsed, error)
    )


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


class RathLLMStreamDelta(BaseModel):
    """One piece of a model's answer as it streams (OpenRath's, with Rath's delivery fields).

    Any subset of the delta fields is set; ``round``, ``attempt``, ``retry`` (this attempt voids
    the round's earlier ones), ``agent`` and ``offset`` (resume from ``offset + 1``) say where
    it belongs (docs/providers.md, "Streaming").
    """

    model_config = ConfigDict(frozen=True)

    content_delta: str | None = None
    tool_call_index: int | None = None
    tool_call_id: str | None = None
    tool_call_name_delta: str | None = None
    tool_call_args_delta: str | None = None
    finish_reason: str | None = None
    usage: RathLLMTokenUsage | None = None
    round: int = 0
    attempt: int = 1
    retry: bool = False
    agent: str = ""
    offset: int | None = None

    @property
    def key(self) -> tuple[int, int]:
        """``(round, attempt)``: events are delivered only while this does not go back."""
        return (self.round, self.attempt)
