"""rath.llm.anthropic's pure helpers follow OpenRath's Anthropic table (no network).

Modelled on OpenRath's ``tests/llm/test_anthropic_normalize.py`` and
``tests/llm/test_anthropic_stream_deltas.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from rath.errors import ConfigError
from rath.llm import Provider, RathLLMFunctionTool, RathLLMStreamDelta, RathLLMTokenUsage
from rath.llm.anthropic import (
    anthropic_event_to_deltas,
    build_anthropic_kwargs,
    build_anthropic_stream_kwargs,
    normalize_anthropic_response,
)
from rath.llm.chat_request import RathLLMChatRequest, RathLLMMessage

MODEL = "claude-opus-4-7"


def _request(**overrides: Any) -> RathLLMChatRequest:
    fields: dict[str, Any] = {"messages": (RathLLMMessage("user", "hi"),), **overrides}
    return RathLLMChatRequest(**fields)


def _kwargs(**overrides: Any) -> dict[str, Any]:
    return build_anthropic_kwargs(_request(**overrides), default_model=MODEL)


def _call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


# --- requests -------------------------------------------------------------------------------


def test_system_and_developer_messages_anywhere_join_the_system_field() -> None:
    kwargs = _kwargs(
        messages=(
            RathLLMMessage("system", "prompt one"),
            RathLLMMessage("user", "ask"),
            RathLLMMessage("developer", "prompt two"),
            RathLLMMessage("system", "memory chunk"),
        )
    )
    assert kwargs["system"] == "prompt one\n\nprompt two\n\nmemory chunk"
    assert kwargs["messages"] == [{"role": "user", "content": "ask"}]


def test_plain_text_stays_a_string_and_turns_are_neither_merged_nor_extended() -> None:
    kwargs = _kwargs(
        messages=(
            RathLLMMessage("user", "one"),
            RathLLMMessage("user", ""),
            RathLLMMessage("user", "two"),
            RathLLMMessage("assistant", "three"),
            RathLLMMessage("assistant", "four"),
        )
    )
    assert kwargs["messages"] == [
        {"role": "user", "content": "one"},
        {"role": "user", "content": ""},
        {"role": "user", "content": "two"},
        {"role": "assistant", "content": "three"},
        {"role": "assistant", "content": "four"},
    ]
    assert "system" not in kwargs


def test_tool_messages_become_user_messages_with_one_tool_result_block() -> None:
    kwargs = _kwargs(
        messages=(
            RathLLMMessage("user", "ask"),
            RathLLMMessage("tool", '{"ok": true}', tool_call_id="tc-1"),
            RathLLMMessage("tool", "second", tool_call_id="tc-2"),
        )
    )
    assert kwargs["messages"][1:] == [
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "tc-1", "content": '{"ok": true}'}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "tc-2", "content": "second"}],
        },
    ]


def test_assistant_tool_calls_become_text_and_tool_use_blocks() -> None:
    args = {"path": "/etc/hosts"}
    calls = (_call("tc-1", "read", json.dumps(args)), _call("tc-2", "ls", "not json"))
    kwargs = _kwargs(
        messages=(
            RathLLMMessage("assistant", "thinking", tool_calls=calls),
            RathLLMMessage("assistant", None, tool_calls=(_call("tc-3", "pwd", ""),)),
        )
    )
    assert kwargs["messages"] == [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "thinking"},
                {"type": "tool_use", "id": "tc-1", "name": "read", "input": args},
                {"type": "tool_use", "id": "tc-2", "name": "ls", "input": {}},
            ],
        },
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "tc-3", "name": "pwd", "input": {}}],
        },
    ]


def test_max_tokens_comes_from_max_tokens_then_max_completion_tokens_then_4096() -> None:
    assert _kwargs()["max_tokens"] == 4096
    assert _kwargs(max_completion_tokens=300)["max_tokens"] == 300
    assert _kwargs(max_tokens=200, max_completion_tokens=300)["max_tokens"] == 200


def test_sampling_fields_stop_and_metadata_pass_as_given() -> None:
    metadata = {"user_id": "u1", "team": "t"}
    kwargs = _kwargs(temperature=0.2, top_p=0.9, stop="END", metadata=metadata, user="someone")
    assert kwargs["temperature"] == 0.2 and kwargs["top_p"] == 0.9
    assert kwargs["stop_sequences"] == ["END"]
    assert kwargs["metadata"] == metadata
    assert _kwargs(stop=("a", "b"))["stop_sequences"] == ["a", "b"]
    assert "metadata" not in _kwargs(user="someone")


def test_tools_translate_to_input_schema() -> None:
    tools = (
        RathLLMFunctionTool(
            "my_tool", {"type": "object", "properties": {"x": {"type": "string"}}}, "desc"
        ),
        RathLLMFunctionTool("bare", {}),
    )
    assert _kwargs(tools=tools)["tools"] == [
        {
            "name": "my_tool",
            "description": "desc",
            "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}},
        },
        {"name": "bare", "input_schema": {"type": "object", "properties": {}}},
    ]
    assert "tools" not in _kwargs(tools=())


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("none", {"type": "none"}),
        ("required", {"type": "any"}),
        ({"type": "function", "function": {"name": "f"}}, {"type": "tool", "name": "f"}),
        ({"type": "tool", "name": "g"}, {"type": "tool", "name": "g"}),
        (
            {"type": "any", "disable_parallel_tool_use": True},
            {"type": "any", "disable_parallel_tool_use": True},
        ),
    ],
)
def test_tool_choice_is_mapped_even_without_tools(choice: Any, expected: Any) -> None:
    assert _kwargs(tool_choice=choice)["tool_choice"] == expected
    tool = RathLLMFunctionTool("f", {"type": "object"})
    assert _kwargs(tool_choice=choice, tools=(tool,))["tool_choice"] == expected


@pytest.mark.parametrize("choice", ["auto", "", None])
def test_automatic_tool_choice_is_left_out(choice: Any) -> None:
    assert "tool_choice" not in _kwargs(tool_choice=choice)


def test_extra_create_args_merge_last_without_stream() -> None:
    kwargs = _kwargs(temperature=0.1, extra_create_args={"stream": True, "temperature": 0.7})
    assert "stream" not in kwargs
    assert kwargs["temperature"] == 0.7


def test_stream_kwargs_are_the_plain_kwargs() -> None:
    req = _request(extra_create_args={"stream": True, "top_k": 5}, tool_choice="required")
    stream = build_anthropic_stream_kwargs(req, default_model=MODEL)
    assert stream == build_anthropic_kwargs(req, default_model=MODEL)
    assert "stream" not in stream and stream["top_k"] == 5


def test_model_comes_from_the_request_or_the_default() -> None:
    assert _kwargs(model="claude-req")["model"] == "claude-req"
    assert _kwargs()["model"] == MODEL
    with pytest.raises(ConfigError, match="model is required") as info:
        build_anthropic_kwargs(_request(), default_model=None)
    assert isinstance(info.value, ValueError)


# --- responses ------------------------------------------------------------------------------


def test_normalize_a_text_response() -> None:
    payload = {
        "id": "msg_abc",
        "model": MODEL,
        "stop_reason": "end_turn",
        "content": [{"type": "text", "text": "hello"}, {"type": "text", "text": "there"}],
        "usage": {"input_tokens": 10, "output_tokens": 20},
    }
    response = normalize_anthropic_response(payload)
    choice = response.primary_choice
    assert (response.id, response.model, response.created) == ("msg_abc", MODEL, 0)
    assert choice.finish_reason == "stop" and choice.message.content == "hello\nthere"
    assert choice.message.tool_calls is None
    assert response.usage is not None and response.usage.total_tokens == 30


def test_normalize_tool_use_blocks_to_tool_calls() -> None:
    payload = {
        "id": "msg_2",
        "model": MODEL,
        "stop_reason": "tool_use",
        "content": [
            {"type": "text", "text": "thinking"},
            {"type": "tool_use", "id": "tu_1", "name": "search", "input": {"q": "hello"}},
        ],
        "usage": {"input_tokens": 5, "output_tokens": 7},
    }
    choice = normalize_anthropic_response(payload).primary_choice
    assert choice.finish_reason == "tool_calls"
    assert choice.message.tool_calls is not None and len(choice.message.tool_calls) == 1
    call = choice.message.tool_calls[0]
    assert (call.id, call.function.name) == ("tu_1", "search")
    assert call.function.arguments_parsed == {"q": "hello"}
    assert json.loads(call.function.arguments) == {"q": "hello"}


@pytest.mark.parametrize(
    ("stop_reason", "finish"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("tool_use", "tool_calls"),
        ("refusal", "stop"),
        (None, "stop"),
    ],
)
def test_normalize_maps_stop_reasons(stop_reason: str | None, finish: str) -> None:
    payload = {"id": "m", "model": MODEL, "stop_reason": stop_reason, "content": []}
    assert normalize_anthropic_response(payload).primary_choice.finish_reason == finish


def test_normalize_without_usage_reports_none() -> None:
    payload = {
        "id": "msg_3",
        "model": MODEL,
        "stop_reason": "max_tokens",
        "content": [{"type": "text", "text": "cut off"}],
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }
    response = normalize_anthropic_response(payload)
    assert response.primary_choice.finish_reason == "length" and response.usage is None


def test_provider_kind_field_round_trips() -> None:
    assert Provider(provider_kind="anthropic", model=MODEL).provider_kind == "anthropic"
    assert Provider().provider_kind is None


# --- stream events --------------------------------------------------------------------------


class _Event:
    """Quacks like an SDK stream event: only ``model_dump`` is read."""

    def __init__(self, payload: dict[str, Any]) -> None:
        self.type = payload.get("type")
        self._payload = payload

    def model_dump(self, mode: str = "python") -> dict[str, Any]:
        return self._payload


def _deltas(payload: dict[str, Any]) -> list[RathLLMStreamDelta]:
    from_dict = list(anthropic_event_to_deltas(payload))
    assert list(anthropic_event_to_deltas(_Event(payload))) == from_dict
    return from_dict


def test_text_delta_yields_content() -> None:
    event = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta"}}
    assert _deltas({**event, "delta": {"type": "text_delta", "text": "Hello"}}) == [
        RathLLMStreamDelta(content_delta="Hello")
    ]
    assert _deltas({**event, "delta": {"type": "text_delta", "text": ""}}) == []


def test_tool_use_start_yields_index_id_and_name() -> None:
    block = {"type": "tool_use", "id": "toolu_01", "name": "search", "input": {}}
    assert _deltas({"type": "content_block_start", "index": 1, "content_block": block}) == [
        RathLLMStreamDelta(
            tool_call_index=1, tool_call_id="toolu_01", tool_call_name_delta="search"
        )
    ]
    text = {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}}
    assert _deltas(text) == []


def test_input_json_delta_yields_an_args_fragment() -> None:
    delta = {"type": "input_json_delta", "partial_json": '{"q":'}
    assert _deltas({"type": "content_block_delta", "index": 2, "delta": delta}) == [
        RathLLMStreamDelta(tool_call_index=2, tool_call_args_delta='{"q":')
    ]
    empty = {"type": "input_json_delta", "partial_json": ""}
    assert _deltas({"type": "content_block_delta", "index": 2, "delta": empty}) == []


@pytest.mark.parametrize(
    ("stop_reason", "finish"),
    [("end_turn", "stop"), ("tool_use", "tool_calls"), ("max_tokens", "length")],
)
def test_message_delta_stop_reason_maps_to_a_finish(stop_reason: str, finish: str) -> None:
    assert _deltas({"type": "message_delta", "delta": {"stop_reason": stop_reason}}) == [
        RathLLMStreamDelta(finish_reason=finish)
    ]


def test_message_delta_without_a_stop_reason_yields_no_finish() -> None:
    assert _deltas({"type": "message_delta", "delta": {"stop_reason": None}}) == []
    assert _deltas({"type": "message_delta", "delta": {"usage": {}}}) == []


def test_message_delta_usage_yields_prompt_and_completion_tokens() -> None:
    usage = {"input_tokens": 10, "output_tokens": 4}
    expected = [RathLLMStreamDelta(usage=RathLLMTokenUsage(10, 4, 14))]
    assert _deltas({"type": "message_delta", "delta": {"usage": usage}}) == expected
    # The live API reports usage beside ``delta``, not inside it.
    assert _deltas({"type": "message_delta", "delta": {}, "usage": usage}) == expected


def test_stop_and_usage_in_one_message_delta_yield_two_deltas() -> None:
    event = {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use"},
        "usage": {"output_tokens": 5},
    }
    assert _deltas(event) == [
        RathLLMStreamDelta(finish_reason="tool_calls"),
        RathLLMStreamDelta(usage=RathLLMTokenUsage(0, 5, 5)),
    ]


@pytest.mark.parametrize("kind", ["message_start", "content_block_stop", "message_stop", "ping"])
def test_other_events_yield_nothing(kind: str) -> None:
    assert _deltas({"type": kind, "index": 0}) == []
