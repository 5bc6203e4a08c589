"""Translation between Rath's chat messages and Anthropic's Messages API (pure functions)."""

from __future__ import annotations

import json

import pytest
from wires import answer_of

from rath.llm import RathLLMTokenUsage
from rath.llm._anthropic_wire import CONTINUE_TEXT, anthropic_completion, anthropic_request

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_workspace_file",
            "description": "Read a file.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]


def _call(id_: str, name: str, arguments: str) -> dict[str, object]:
    return {"id": id_, "type": "function", "function": {"name": name, "arguments": arguments}}


def test_system_rows_join_the_system_field_wherever_they_stand() -> None:
    body = anthropic_request(
        [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "hi"},
            {"role": "developer", "content": "[memory] likes tea"},
            {"role": "system", "content": [{"type": "text", "text": "Answer in English."}]},
        ],
        [],
        model="claude-x",
        options={},
    )
    assert body["system"] == "You are terse.\n\n[memory] likes tea\n\nAnswer in English."
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert body["max_tokens"] == 4096
    assert "tools" not in body and "tool_choice" not in body


def test_tool_round_translates_to_tool_use_and_merged_tool_results() -> None:
    messages = [
        {"role": "system", "content": "Use tools."},
        {"role": "user", "content": "read a and b"},
        {
            "role": "assistant",
            "content": "Reading both.",
            "tool_calls": [
                _call("toolu_1", "read_workspace_file", '{"path": "a"}'),
                _call("toolu_2", "read_workspace_file", ""),
            ],
        },
        {"role": "tool", "tool_call_id": "toolu_1", "content": '{"data": "A"}'},
        {"role": "tool", "tool_call_id": "toolu_2", "content": '{"data": "B"}'},
        {"role": "user", "content": "and summarise"},
    ]
    body = anthropic_request(messages, TOOLS, model="claude-x", options={})
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "read a and b"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Reading both."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "read_workspace_file",
                    "input": {"path": "a"},
                },
                {"type": "tool_use", "id": "toolu_2", "name": "read_workspace_file", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": '{"data": "A"}'},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": '{"data": "B"}'},
                {"type": "text", "text": "and summarise"},
            ],
        },
    ]
    assert body["tools"] == [
        {
            "name": "read_workspace_file",
            "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
            "description": "Read a file.",
        }
    ]


def test_tool_results_come_first_in_a_merged_user_turn() -> None:
    messages = [
        {"role": "assistant", "content": None, "tool_calls": [_call("t1", "f", "{}")]},
        {"role": "user", "content": "an interjection"},
        {"role": "tool", "tool_call_id": "t1", "content": "ok"},
    ]
    body = anthropic_request(messages, TOOLS, model="m", options={})
    kinds = [block["type"] for block in body["messages"][1]["content"]]
    assert kinds == ["tool_result", "text"]


def test_consecutive_turns_of_one_role_merge_and_empty_text_is_dropped() -> None:
    messages = [
        {"role": "user", "content": "one"},
        {"role": "user", "content": ""},
        {"role": "user", "content": "two"},
        {"role": "assistant", "content": "a"},
        {"role": "assistant", "content": "b"},
        {"role": "user", "content": "three"},
    ]
    body = anthropic_request(messages, [], model="m", options={})
    assert [(m["role"], [b["text"] for b in m["content"]]) for m in body["messages"]] == [
        ("user", ["one", "two"]),
        ("assistant", ["a", "b"]),
        ("user", ["three"]),
    ]


def test_a_trailing_assistant_turn_is_answered_not_continued() -> None:
    # A chained agent reads the previous agent's answer as an assistant turn; Anthropic would
    # treat a final assistant turn as a prefill to extend.
    body = anthropic_request(
        [{"role": "user", "content": "task"}, {"role": "assistant", "content": "plan"}],
        [],
        model="m",
        options={},
    )
    assert body["messages"][-1] == {
        "role": "user",
        "content": [{"type": "text", "text": CONTINUE_TEXT}],
    }


def test_images_become_image_blocks() -> None:
    content = [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,QUJD"}},
        {"type": "image_url", "image_url": {"url": "https://example.test/cat.png"}},
    ]
    body = anthropic_request([{"role": "user", "content": content}], [], model="m", options={})
    assert body["messages"][0]["content"][1:] == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "QUJD"}},
        {"type": "image", "source": {"type": "url", "url": "https://example.test/cat.png"}},
    ]


@pytest.mark.parametrize(
    ("choice", "parallel", "expected"),
    [
        (None, None, None),
        ("auto", None, None),
        ("auto", False, {"type": "auto", "disable_parallel_tool_use": True}),
        ("none", None, {"type": "none"}),
        ("required", None, {"type": "any"}),
        (
            {"type": "function", "function": {"name": "read_workspace_file"}},
            None,
            {"type": "tool", "name": "read_workspace_file"},
        ),
        ({"type": "any"}, None, {"type": "any"}),
    ],
)
def test_tool_choice(choice: object, parallel: object, expected: object) -> None:
    options = {"tool_choice": choice, "parallel_tool_calls": parallel}
    body = anthropic_request([{"role": "user", "content": "x"}], TOOLS, model="m", options=options)
    assert body.get("tool_choice") == expected


def test_sampling_fields_are_mapped_or_dropped_and_extras_pass_through() -> None:
    options = {
        "max_completion_tokens": 300,
        "stop": "END",
        "temperature": 0.2,
        "top_p": 0.9,
        "seed": 7,
        "presence_penalty": 0.5,
        "response_format": {"type": "json_object"},
        "user": "user-42",
        "top_k": 5,
    }
    body = anthropic_request([{"role": "user", "content": "x"}], [], model="m", options=options)
    assert body["max_tokens"] == 300
    assert body["stop_sequences"] == ["END"]
    assert (body["temperature"], body["top_p"], body["top_k"]) == (0.2, 0.9, 5)
    assert body["metadata"] == {"user_id": "user-42"}
    assert not {"seed", "presence_penalty", "response_format", "user", "stop"} & set(body)
    assert anthropic_request([], [], model="m", options={"max_tokens": 9})["max_tokens"] == 9


def test_response_text_tool_use_stop_reason_and_usage() -> None:
    message = {
        "type": "message",
        "model": "claude-x",
        "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "s"},
            {"type": "text", "text": "Reading "},
            {"type": "text", "text": "it."},
            {"type": "tool_use", "id": "toolu_9", "name": "f", "input": {"path": "ü"}},
        ],
        "stop_reason": "tool_use",
        "usage": {
            "input_tokens": 10,
            "cache_read_input_tokens": 90,
            "cache_creation_input_tokens": 5,
            "output_tokens": 7,
        },
    }
    completion = answer_of(anthropic_completion(message), 3)
    assert completion.content == "Reading it."
    assert [(c.id, c.name, json.loads(c.arguments)) for c in completion.tool_calls] == [
        ("toolu_9", "f", {"path": "ü"})
    ]
    assert completion.finish_reason == "tool_calls"
    assert completion.usage == RathLLMTokenUsage(105, 7, 112)
    assert completion.model == "claude-x"


@pytest.mark.parametrize(
    ("stop_reason", "finish"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("refusal", "content_filter"),
        ("something_new", "stop"),
        (None, "stop"),
    ],
)
def test_stop_reasons(stop_reason: str | None, finish: str) -> None:
    message = {"content": [{"type": "text", "text": "x"}], "stop_reason": stop_reason}
    completion = answer_of(anthropic_completion(message), 1)
    assert completion.finish_reason == finish
    assert completion.usage is None


def test_missing_ids_get_stable_ones_and_non_messages_are_rejected() -> None:
    message = {"content": [{"type": "tool_use", "name": "f", "input": {}}], "stop_reason": None}
    completion = answer_of(anthropic_completion(message), 4)
    assert completion.tool_calls[0].id == "call_4_0"
    assert completion.finish_reason == "tool_calls"
    for bad in ({"type": "message"}, "not json", {"content": "text"}):
        with pytest.raises(ValueError, match="content list"):
            anthropic_completion(bad)
