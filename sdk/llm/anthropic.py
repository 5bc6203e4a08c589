"""OpenRath's direct Anthropic client and its pure helpers (``rath.llm.anthropic``).

Requests go through the same translation as Rath's durable Anthropic calls (system and
developer messages joined into ``system``, tool results as ``tool_result`` blocks, tool choice
mapped); failures are :class:`~rath.llm.ProviderError`, retried when retrying may help.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic

from rath.llm._anthropic_client import ANTHROPIC_ERRORS
from rath.llm._anthropic_stream import AnthropicStreamAnswer
from rath.llm._anthropic_wire import STOP_REASONS, anthropic_request
from rath.llm._direct import direct_target
from rath.llm._direct_client import DirectChatClient
from rath.llm._provider import Provider
from rath.llm._stream import RathLLMStreamDelta
from rath.llm._usage import TokenUsage
from rath.llm.dto import (
    RathLLMAssistantMessage,
    RathLLMChatChoice,
    RathLLMChatRequest,
    RathLLMChatResponse,
    RathLLMTokenUsage,
    RathLLMToolCallFunction,
    RathLLMToolCallPart,
)
from rath.llm.openai import to_create_kwargs

ANTHROPIC_RETRYABLE: tuple[type[Exception], ...] = (
    anthropic.RateLimitError,
    anthropic.APIConnectionError,
    anthropic.APITimeoutError,
    anthropic.InternalServerError,
)
"""The ``anthropic`` exceptions OpenRath retried (Rath classifies by status)."""


def build_anthropic_kwargs(req: RathLLMChatRequest, *, default_model: str | None) -> dict[str, Any]:
    """``messages.create`` keywords for ``req`` (OpenAI-shaped messages translated).

    Raises:
        ConfigError: No model anywhere (a ``ValueError``).
    """
    wire = to_create_kwargs(req, default_model=default_model)
    messages, tools = wire.pop("messages"), wire.pop("tools", [])
    model = wire.pop("model")
    wire.pop("stream", None)
    return anthropic_request(messages, tools, model=model, options=wire)


def build_anthropic_stream_kwargs(
    req: RathLLMChatRequest, *, default_model: str | None
) -> dict[str, Any]:
    """:func:`build_anthropic_kwargs` for a streamed answer."""
    return {**build_anthropic_kwargs(req, default_model=default_model), "stream": True}


def normalize_anthropic_response(payload: Any) -> RathLLMChatResponse:
    """A :class:`RathLLMChatResponse` from a Messages API ``message`` (SDK object or dict).

    Text blocks are joined with newlines; ``tool_use`` blocks become tool calls with JSON
    arguments; the stop reason is mapped to OpenAI's finish reasons (else ``"stop"``).
    """
    data: dict[str, Any] = payload.model_dump() if hasattr(payload, "model_dump") else dict(payload)
    texts: list[str] = []
    calls: list[RathLLMToolCallPart] = []
    for block in data.get("content") or ():
        if block.get("type") == "text":
            texts.append(str(block.get("text") or ""))
        elif block.get("type") == "tool_use":
            arguments = block.get("input") or {}
            calls.append(
                RathLLMToolCallPart(
                    id=str(block.get("id") or ""),
                    type="function",
                    function=RathLLMToolCallFunction(
                        name=str(block.get("name") or ""),
                        arguments=json.dumps(arguments, ensure_ascii=False),
                        arguments_parsed=dict(arguments),
                        arguments_parse_error=False,
                    ),
                )
            )
    reason = STOP_REASONS.get(str(data.get("stop_reason")), "stop")
    usage = data.get("usage") or {}
    prompt, completion = int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
    return RathLLMChatResponse(
        id=str(data.get("id") or ""),
        choices=(
            RathLLMChatChoice(
                index=0,
                finish_reason=reason,  # type: ignore[arg-type]
                message=RathLLMAssistantMessage(
                    content="\n".join(texts) if texts else None, tool_calls=tuple(calls) or None
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


def anthropic_event_to_deltas(event: Any) -> list[RathLLMStreamDelta]:
    """The deltas one stream event carries, on its own (a tool call's index is its block's).

    ``content_block_start`` of a ``tool_use`` block: its id and name; ``input_json_delta``:
    arguments; ``text_delta``: content; ``message_delta``: the finish reason and usage.
    """
    data: dict[str, Any] = event.model_dump() if hasattr(event, "model_dump") else dict(event)
    kind, index = data.get("type"), data.get("index")
    if kind == "content_block_start":
        block = data.get("content_block") or {}
        if block.get("type") == "tool_use":
            return [
                RathLLMStreamDelta(
                    tool_call_index=index,
                    tool_call_id=block.get("id") or None,
                    tool_call_name_delta=block.get("name") or None,
                )
            ]
        return []
    if kind == "content_block_delta":
        delta = data.get("delta") or {}
        if delta.get("type") == "text_delta" and delta.get("text"):
            return [RathLLMStreamDelta(content_delta=delta["text"])]
        if delta.get("type") == "input_json_delta" and delta.get("partial_json"):
            return [
                RathLLMStreamDelta(
                    tool_call_index=index, tool_call_args_delta=delta["partial_json"]
                )
            ]
        return []
    if kind == "message_delta":
        reason = STOP_REASONS.get(str((data.get("delta") or {}).get("stop_reason")), "stop")
        output = int((data.get("usage") or {}).get("output_tokens") or 0)
        usage = TokenUsage(completion_tokens=output) if output else None
        return [RathLLMStreamDelta(finish_reason=reason, usage=usage)]
    return []


class RathAnthropicChatClient(DirectChatClient):
    """Anthropic's Messages API from plain Python, with OpenRath's types and retries.

    The key is the provider's, else ``ANTHROPIC_API_KEY``, else the config file's first
    Anthropic provider's; ``ANTHROPIC_DEFAULT_MODEL`` applies only when the provider names no
    model. A server given by a base URL needs no key.

    Raises:
        ConfigError: No key and no base URL (a ``ValueError``: "No API key found").
    """

    def __init__(self, provider: Provider) -> None:
        target = direct_target(
            provider, "anthropic", label="Anthropic", key_envs=lambda url: ("ANTHROPIC_API_KEY",)
        )
        super().__init__(provider, target)
        self._client = anthropic.Anthropic(
            api_key=target.key or "unused",
            base_url=target.base_url,
            max_retries=0,
            timeout=target.timeout,
        )

    errors = ANTHROPIC_ERRORS

    def _kwargs(self, req: RathLLMChatRequest, *, stream: bool) -> dict[str, Any]:
        build = build_anthropic_stream_kwargs if stream else build_anthropic_kwargs
        return build(req, default_model=self._default_model)

    def _create(self, kwargs: dict[str, Any]) -> Any:
        return self._client.messages.create(**kwargs)

    def _normalize(self, raw: Any) -> RathLLMChatResponse:
        return normalize_anthropic_response(raw)

    def _stream_answer(self) -> AnthropicStreamAnswer:
        return AnthropicStreamAnswer(where=self._site.where, model=self._site.model)

    def close(self) -> None:
        """Close the HTTP client."""
        self._client.close()
