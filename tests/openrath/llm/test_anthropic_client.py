"""rath.llm.anthropic: OpenRath's direct client and helpers, against the fake Anthropic server."""

from __future__ import annotations

from pathlib import Path

import pytest

from rath.errors import ConfigError
from rath.llm import (
    Provider,
    ProviderError,
    RathLLMFunctionTool,
    RathLLMStreamDelta,
    RathLLMTokenUsage,
)
from rath.llm.anthropic import (
    RathAnthropicChatClient,
    anthropic_event_to_deltas,
    build_anthropic_kwargs,
    normalize_anthropic_response,
)
from rath.llm.chat_request import RathLLMChatRequest, RathLLMMessage
from rath.testing import FakeAnthropicServer, error_reply, text_reply, tool_call_reply

REQUEST = RathLLMChatRequest(
    messages=[
        RathLLMMessage("system", "Be brief."),
        RathLLMMessage("user", "hi"),
        RathLLMMessage("developer", "Really brief."),
    ],
    tools=[RathLLMFunctionTool("search", {"type": "object", "properties": {}}, "Search.")],
    tool_choice="required",
)


@pytest.fixture(autouse=True)
def _no_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENRATH_HOME", str(tmp_path / "openrath"))
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_DEFAULT_MODEL"):
        monkeypatch.delenv(name, raising=False)


def test_the_request_translation() -> None:
    kwargs = build_anthropic_kwargs(REQUEST, default_model="claude-test")
    assert kwargs["system"] == "Be brief.\n\nReally brief."
    assert kwargs["max_tokens"] == 4096 and kwargs["model"] == "claude-test"
    assert kwargs["tools"] == [
        {
            "name": "search",
            "input_schema": {"type": "object", "properties": {}},
            "description": "Search.",
        }
    ]
    assert kwargs["tool_choice"] == {"type": "any"}
    assert kwargs["messages"] == [{"role": "user", "content": "hi"}]  # plain text stays a string


def test_a_completion_and_a_retried_server_error() -> None:
    script = [error_reply(529, "overloaded"), text_reply("Hello.", usage=(9, 2))]
    with FakeAnthropicServer(script) as server:
        provider = Provider(model="claude-test", base_url=server.base_url, retry_base_seconds=0.01)
        client = RathAnthropicChatClient(provider)
        response = client.complete(REQUEST)
        assert len(server.requests) == 2
    choice = response.primary_choice
    assert choice.message.content == "Hello." and choice.finish_reason == "stop"
    assert response.usage == RathLLMTokenUsage(9, 2, 11) and response.created == 0


def test_tool_use_comes_back_as_tool_calls_and_a_rejection_is_raised() -> None:
    script = [tool_call_reply(("search", {"q": "x"})), error_reply(400, "bad")]
    with FakeAnthropicServer(script) as server:
        client = RathAnthropicChatClient(Provider(model="c", base_url=server.base_url))
        calls = client.complete(REQUEST).primary_choice.message.tool_calls
        with pytest.raises(ProviderError) as info:
            client.complete(REQUEST)
    assert calls is not None and calls[0].function.arguments_parsed == {"q": "x"}
    assert info.value.retryable is False


def test_a_streamed_answer_comes_as_deltas() -> None:
    with FakeAnthropicServer([text_reply("Hi there.", usage=(3, 4))]) as server:
        client = RathAnthropicChatClient(Provider(model="c", base_url=server.base_url))
        deltas = list(client.complete_stream(REQUEST))
    assert "".join(d.content_delta or "" for d in deltas) == "Hi there."
    assert any(d.finish_reason == "stop" for d in deltas)


def test_no_key_and_no_server_is_refused() -> None:
    with pytest.raises(ConfigError, match="No Anthropic api_key found"):
        RathAnthropicChatClient(Provider(model="c", provider_kind="anthropic"))


def test_events_and_payloads_map_on_their_own() -> None:
    start = {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "tool_use", "id": "t1", "name": "search", "input": {}},
    }
    assert anthropic_event_to_deltas(start) == [
        RathLLMStreamDelta(tool_call_index=1, tool_call_id="t1", tool_call_name_delta="search")
    ]
    args = {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "input_json_delta", "partial_json": '{"q"'},
    }
    assert anthropic_event_to_deltas(args) == [
        RathLLMStreamDelta(tool_call_index=1, tool_call_args_delta='{"q"')
    ]
    text = {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "text_delta", "text": "Hi"},
    }
    assert anthropic_event_to_deltas(text) == [RathLLMStreamDelta(content_delta="Hi")]
    end = {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use"},
        "usage": {"output_tokens": 5},
    }
    assert anthropic_event_to_deltas(end) == [  # the stop reason, then the usage, apart
        RathLLMStreamDelta(finish_reason="tool_calls"),
        RathLLMStreamDelta(usage=RathLLMTokenUsage(0, 5, 5)),
    ]
    assert anthropic_event_to_deltas({"type": "ping"}) == []
    payload = {
        "id": "m1",
        "model": "c",
        "stop_reason": "max_tokens",
        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }
    response = normalize_anthropic_response(payload)
    assert response.primary_choice.message.content == "a\nb"
    assert response.primary_choice.finish_reason == "length" and response.usage is None
