"""The fake Anthropic server, and truncation on both fakes, driven by the official SDKs."""

from __future__ import annotations

import anthropic
import httpx
import openai
import pytest

from rath.testing import (
    FakeAnthropicServer,
    FakeChatServer,
    error_reply,
    text_reply,
    tool_call_reply,
    truncated,
)

HI: list[anthropic.types.MessageParam] = [{"role": "user", "content": "hi"}]


def _client(server: FakeAnthropicServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.base_url, api_key="t", max_retries=0, timeout=10)


def test_messages_tool_use_and_usage() -> None:
    reply = tool_call_reply(("read", {"path": "a"}), content="Looking.", usage=(12, 3))
    with FakeAnthropicServer([reply], model="claude-fake") as server:
        message = _client(server).messages.create(model="claude-x", max_tokens=10, messages=HI)
        [request] = server.requests
    assert message.stop_reason == "tool_use"
    assert message.model == "claude-x"
    text, tool = message.content
    assert text.type == "text" and text.text == "Looking."
    assert tool.type == "tool_use" and (tool.id, tool.name, tool.input) == (
        "call_0_read",
        "read",
        {"path": "a"},
    )
    assert (message.usage.input_tokens, message.usage.output_tokens) == (12, 3)
    assert request.path == "/v1/messages" and request.api_key == "t"
    assert request.body["max_tokens"] == 10


def test_streaming_events_reassemble() -> None:
    reply = tool_call_reply(("write", {"path": "a.txt", "content": "x" * 30}), content="Writing.")
    with (
        FakeAnthropicServer([reply]) as server,
        _client(server).messages.stream(model="m", max_tokens=10, messages=HI) as stream,
    ):
        events = [event.type for event in stream]
        final = stream.get_final_message()
    assert events[0] == "message_start" and "input_json" in events
    assert final.stop_reason == "tool_use"
    assert final.content[1].type == "tool_use"
    assert final.content[1].input == {"path": "a.txt", "content": "x" * 30}
    assert final.usage.output_tokens == 5


def test_errors_use_anthropics_shape() -> None:
    with FakeAnthropicServer([error_reply(429, "slow", headers={"retry-after": "4"})]) as server:
        with pytest.raises(anthropic.RateLimitError) as info:
            _client(server).messages.create(model="m", max_tokens=5, messages=HI)
        listing = httpx.get(f"{server.base_url}/v1/models").json()
    assert info.value.body == {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "slow"},
    }
    assert info.value.response.headers["retry-after"] == "4"
    assert listing["data"][0]["id"] == "fake-model"


def test_truncated_streams_end_early() -> None:
    with (
        FakeAnthropicServer([truncated(text_reply("never finished " * 5))]) as server,
        _client(server).messages.stream(model="m", max_tokens=5, messages=HI) as stream,
    ):
        events = [event.type for event in stream]
    assert "message_stop" not in events and events[0] == "message_start"
    with FakeChatServer([truncated(text_reply("never finished " * 5))]) as chat:
        client = openai.OpenAI(base_url=chat.base_url, api_key="t", max_retries=0, timeout=10)
        chunks = list(
            client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}], stream=True
            )
        )
    assert chunks and all(c.choices[0].finish_reason is None for c in chunks)
