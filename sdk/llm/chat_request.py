"""OpenRath's ``rath.llm.chat_request``: a chat request in OpenAI's shape, as values."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from rath.errors import ConfigError

RathLLMRole = Literal["system", "user", "assistant", "tool", "developer"]

__all__ = [
    "RathLLMChatRequest",
    "RathLLMFunctionTool",
    "RathLLMMessage",
    "RathLLMRole",
    "openrath_tool_list",
    "request_from_openai",
    "strip_additional_properties",
]


@dataclass(frozen=True)
class RathLLMFunctionTool:
    """A function the model may call: its name, JSON Schema, description and strictness."""

    name: str
    parameters: dict[str, Any]
    description: str | None = None
    strict: bool | None = None

    def to_openai(self) -> dict[str, Any]:
        """The Chat Completions ``tools`` entry."""
        function: dict[str, Any] = {"name": self.name, "parameters": self.parameters}
        if self.description is not None:
            function["description"] = self.description
        if self.strict is not None:
            function["strict"] = self.strict
        return {"type": "function", "function": function}


def strip_additional_properties(schema: Any) -> Any:
    """``schema`` without ``additionalProperties`` at any depth, as OpenRath sends schemas."""
    if isinstance(schema, Mapping):
        return {
            k: strip_additional_properties(v)
            for k, v in schema.items()
            if k != "additionalProperties"
        }
    if isinstance(schema, list):
        return [strip_additional_properties(v) for v in schema]
    return schema


def openrath_tool_list(tools: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI ``tools`` entries as OpenRath sends them: sorted by name, schemas stripped."""
    return sorted(
        (strip_additional_properties(tool) for tool in tools),
        key=lambda tool: str((tool.get("function") or {}).get("name") or ""),
    )


@dataclass(frozen=True)
class RathLLMMessage:
    """One message of a request (Rath's extension: ``content`` may be OpenAI content parts)."""

    role: str
    content: str | Sequence[Mapping[str, Any]] | None = None
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


_FIELDS = frozenset(RathLLMChatRequest.__dataclass_fields__) - {
    "messages",
    "tools",
    "extra_create_args",
}


def request_from_openai(
    messages: Iterable[Mapping[str, Any]],
    tools: Iterable[Mapping[str, Any]] = (),
    options: Mapping[str, Any] | None = None,
) -> RathLLMChatRequest:
    """A request from OpenAI chat dicts: option names that are fields become fields.

    Raises:
        ConfigError: ``options`` sets ``stream`` (streaming is asked for with ``on_event``).
    """
    extra = dict(options or {})
    if extra.get("stream"):
        raise ConfigError("`stream` cannot be set in Provider options; use on_event for streaming")
    fields = {k: extra.pop(k) for k in list(extra) if k in _FIELDS}
    return RathLLMChatRequest(
        messages=tuple(
            RathLLMMessage(
                role=str(m["role"]),
                content=m.get("content"),
                name=m.get("name"),
                tool_call_id=m.get("tool_call_id"),
                tool_calls=tuple(m["tool_calls"]) if m.get("tool_calls") else None,
            )
            for m in messages
        ),
        tools=tuple(
            RathLLMFunctionTool(
                name=t["function"]["name"],
                parameters=dict(t["function"].get("parameters") or {}),
                description=t["function"].get("description"),
                strict=t["function"].get("strict"),
            )
            for t in tools
        )
        or None,
        extra_create_args=extra,
        **fields,
    )
