"""The pieces of streaming without Temporal: folding, merging, reading real SSE from fake servers.

The stream readers are driven through the official SDKs against the fake servers' real
server-sent events on loopback, including streams that end early or report an error.
"""

from __future__ import annotations

import json

import pytest
from temporalio.contrib.workflow_streams import WorkflowStreamState
from wires import MODELS, Answer, Call, answer_of, fake_server, provider_for

from rath.errors import ConfigError
from rath.llm import (
    ProviderError,
    RathLLMAssistantMessage,
    RathLLMChatChoice,
    RathLLMChatRequest,
    RathLLMChatResponse,
    RathLLMTokenUsage,
    RathLLMToolCallFunction,
    RathLLMToolCallPart,
)
from rath.llm._openai_stream import OpenAIStreamAnswer
from rath.llm.aio import async_chat_client_for
from rath.llm.chat_request import request_from_openai
from rath.llm.tool_args import parse_arguments
from rath.streaming import RathLLMStreamDelta, StreamFold, stream_completion
from rath.testing import raw_reply, text_reply, tool_call_reply, truncated
from rath.workflows._stream_handoff import carried

D = RathLLMStreamDelta
REQUEST = request_from_openai([{"role": "user", "content": "go"}])


async def _stream(wire: str, reply: object) -> tuple[Answer, list[RathLLMStreamDelta]]:
    events: list[RathLLMStreamDelta] = []
    with fake_server(wire, [reply]) as server:
        client = async_chat_client_for(provider_for(wire, server.base_url))
        try:
            response = await stream_completion(client, REQUEST, events.append, round_index=3)
        finally:
            await client.aclose()
    return answer_of(response), events


def _fold(events: list[RathLLMStreamDelta]) -> StreamFold:
    fold = StreamFold()
    for event in events:
        fold.add(event.model_copy(update={"round": 1}))
    return fold


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_streamed_text_folds_to_the_completion(wire: str) -> None:
    completion, events = await _stream(wire, text_reply("The quick brown fox.", usage=(7, 3)))
    assert completion.content == "The quick brown fox."
    assert completion.finish_reason == "stop"
    assert completion.usage == RathLLMTokenUsage(7, 3, 10)
    assert len([e for e in events if e.content_delta]) == 3  # the fake sends three pieces
    folded = _fold(events).rounds[1]
    assert folded.content == completion.content
    assert (folded.finish_reason, folded.usage) == ("stop", completion.usage)


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_streamed_tool_calls_fold_to_the_completion(wire: str) -> None:
    reply = tool_call_reply(
        ("write_workspace_file", {"path": "a.txt", "content": "A"}),
        ("read_workspace_file", {"path": "a.txt"}),
        content="Writing.",
    )
    completion, events = await _stream(wire, reply)
    assert completion.tool_calls == (
        Call(
            "call_0_write_workspace_file",
            "write_workspace_file",
            json.dumps({"path": "a.txt", "content": "A"}),
        ),
        Call("call_1_read_workspace_file", "read_workspace_file", '{"path": "a.txt"}'),
    )
    starts = [e for e in events if e.tool_call_name_delta]
    assert [(e.tool_call_index, e.tool_call_id) for e in starts] == [
        (0, "call_0_write_workspace_file"),
        (1, "call_1_read_workspace_file"),
    ]
    folded = _fold(events).rounds[1]
    assert folded.content == "Writing."
    assert [(c.id, c.name, c.arguments) for c in folded.tool_calls.values()] == [
        (call.id, call.name, call.arguments) for call in completion.tool_calls
    ]
    assert folded.finish_reason == "tool_calls"


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_a_stream_that_ends_early_is_a_retryable_bad_response(wire: str) -> None:
    with pytest.raises(ProviderError) as caught:
        await _stream(wire, truncated(text_reply("cut off " * 10), keep=0.5))
    assert caught.value.retryable
    assert caught.value.error_type == "LLMBadResponse"
    assert "before the answer finished" in str(caught.value)


ERROR_EVENTS = {
    "openai": (
        b'data: {"error": {"message": "the model is overloaded", "type": "server_error"}}\n\n'
    ),
    "anthropic": (
        b"event: error\n"
        b'data: {"type": "error", "error": {"type": "overloaded_error", '
        b'"message": "the model is overloaded"}}\n\n'
    ),
}


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_an_error_event_mid_stream_is_retryable(wire: str) -> None:
    reply = raw_reply(200, ERROR_EVENTS[wire], content_type="text/event-stream")
    with pytest.raises(ProviderError) as caught:
        await _stream(wire, reply)
    assert (caught.value.error_type, caught.value.retryable) == ("LLMStreamError", True)
    assert "overloaded" in str(caught.value)


async def test_a_client_that_cannot_stream_sends_its_answer_as_deltas() -> None:
    class OnePiece:
        kind, model = "one-piece", MODELS["openai"]

        async def acomplete(self, req: RathLLMChatRequest) -> RathLLMChatResponse:
            function = RathLLMToolCallFunction("list_workspace_files", "{}", {}, False)
            message = RathLLMAssistantMessage(
                content="hello", tool_calls=(RathLLMToolCallPart("c1", "function", function),)
            )
            choice = RathLLMChatChoice(0, "tool_calls", message)
            return RathLLMChatResponse("", (choice,), 0, "m", usage=RathLLMTokenUsage(0, 0, 3))

        async def aclose(self) -> None:
            pass

    events: list[RathLLMStreamDelta] = []
    completion = await stream_completion(OnePiece(), REQUEST, events.append)
    assert completion.primary_choice.message.content == "hello"
    assert [e.model_dump(exclude_defaults=True) for e in events] == [
        {"content_delta": "hello"},
        {
            "tool_call_index": 0,
            "tool_call_id": "c1",
            "tool_call_name_delta": "list_workspace_files",
            "tool_call_args_delta": "{}",
        },
        {"finish_reason": "tool_calls"},
        {"usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 3}},
    ]


def test_stream_cannot_be_asked_for_in_provider_options() -> None:
    with pytest.raises(ConfigError, match="on_event"):
        request_from_openai([], options={"stream": True})


def test_a_retry_voids_the_round_and_stale_attempts_are_ignored() -> None:
    fold = StreamFold()
    for event in [
        D(round=1, content_delta="Hel"),
        D(round=1, attempt=2, retry=True),
        D(round=1, content_delta="lo, stale"),  # a superseded attempt still publishing
        D(round=1, attempt=2, content_delta="Hi"),
        D(round=1, attempt=3, retry=True),
        D(round=1, attempt=3, content_delta="Hey"),
        D(round=1, attempt=2, retry=True),  # a late marker of a superseded attempt: no reset
        D(round=2, content_delta="next"),
    ]:
        fold.add(event)
    assert (fold.rounds[1].attempt, fold.rounds[1].content) == (3, "Hey")
    assert fold.rounds[2].content == "next"


def test_coalescing_merges_pieces_but_keeps_order_and_meaning() -> None:
    from rath.llm.stream import coalesce

    events = [
        D(content_delta="a"),
        D(content_delta="b"),
        D(tool_call_index=0, tool_call_id="x", tool_call_name_delta="f"),
        D(tool_call_index=0, tool_call_args_delta='{"k"'),
        D(tool_call_index=0, tool_call_args_delta=": 1}"),
        D(tool_call_index=1, tool_call_id="y", tool_call_name_delta="g"),
        D(finish_reason="tool_calls"),
        D(usage=RathLLMTokenUsage(0, 0, 2)),
        D(attempt=2, retry=True),
        D(attempt=2, content_delta="c"),
        D(attempt=2, content_delta="d"),
    ]
    merged = coalesce(events)
    assert [e.model_dump(exclude_defaults=True) for e in merged] == [
        {"content_delta": "ab"},
        {
            "tool_call_index": 0,
            "tool_call_id": "x",
            "tool_call_name_delta": "f",
            "tool_call_args_delta": '{"k": 1}',
        },
        {"tool_call_index": 1, "tool_call_id": "y", "tool_call_name_delta": "g"},
        {"finish_reason": "tool_calls"},
        {"usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 2}},
        {"attempt": 2, "retry": True},
        {"attempt": 2, "content_delta": "cd"},
    ]
    whole, parts = StreamFold(), StreamFold()
    for event in events:
        whole.add(event)
    for event in merged:
        parts.add(event)
    assert whole.rounds == parts.rounds


def test_continue_as_new_carries_the_newest_events_that_fit() -> None:
    from temporalio.contrib.workflow_streams._types import _WorkflowStreamWireItem

    log = [_WorkflowStreamWireItem(topic="t", data="x" * 100) for _ in range(10)]
    state = WorkflowStreamState(log=log, base_offset=5)
    assert carried(state, limit=10_000) is state
    kept = carried(state, limit=350)
    assert (len(kept.log), kept.base_offset) == (3, 12)
    assert kept.log == log[7:]


def test_an_anthropic_tool_call_cut_off_at_max_tokens_keeps_its_raw_arguments() -> None:
    """Not a retryable failure (a retry would be cut off again): the model hears of it."""
    from rath.llm._anthropic_stream import AnthropicStreamAnswer
    from rath.llm._anthropic_wire import anthropic_completion

    answer = AnthropicStreamAnswer(where="anthropic", model="claude-fake")
    message = {"id": "m", "type": "message", "role": "assistant", "model": "claude-fake"}
    tool = {"type": "tool_use", "id": "t1", "name": "write_workspace_file", "input": {}}
    events = [
        {"type": "message_start", "message": {**message, "usage": {"input_tokens": 5}}},
        {"type": "content_block_start", "index": 0, "content_block": tool},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"path": "a.txt", "cont'},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {}},
        {"type": "message_stop"},
    ]
    for event in events:
        answer.feed(event)
    completion = answer_of(anthropic_completion(answer.answer()))
    (call,) = completion.tool_calls
    assert (call.name, call.arguments) == ("write_workspace_file", '{"path": "a.txt", "cont')
    assert parse_arguments(call.arguments)[0] is None  # the loop reports invalid arguments


def _chunk(**choice: object) -> dict[str, object]:
    return {"id": "c1", "model": "m", "choices": [{"index": 0, **choice}]}


def test_openai_chunks_become_deltas_in_openrath_s_shape() -> None:
    answer = OpenAIStreamAnswer(where="test", model="m")
    # Content and a stop in one chunk: two deltas.
    assert answer.feed(_chunk(delta={"content": "Hi"}, finish_reason="stop")) == [
        D(content_delta="Hi"),
        D(finish_reason="stop"),
    ]
    # Empty content, an unknown finish reason, an empty usage block: no delta.
    assert answer.feed(_chunk(delta={"content": ""}, finish_reason="odd")) == []
    assert answer.feed({"id": "c1", "choices": [], "usage": {}}) == []
    # A stop and usage together: one delta each; a usage-only chunk: one usage delta.
    usage = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    both = answer.feed({**_chunk(delta={}, finish_reason="stop"), "usage": usage})
    assert both == [D(finish_reason="stop"), D(usage=RathLLMTokenUsage(**usage))]
    usage_only = answer.feed({"id": "c1", "choices": [], "usage": usage})
    assert usage_only == [D(usage=RathLLMTokenUsage(**usage))]
    # Only the first choice is read.
    assert answer.feed({"id": "c1", "choices": [{"index": 1, "delta": {"content": "x"}}]}) == []
