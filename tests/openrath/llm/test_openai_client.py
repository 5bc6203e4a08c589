"""rath.llm.openai: OpenRath's direct client and helpers, against the fake OpenAI server."""

from __future__ import annotations

from pathlib import Path

import pytest
from openai._models import construct_type
from openai.types.chat import ChatCompletionChunk

from rath.errors import ConfigError
from rath.llm import (
    Provider,
    ProviderError,
    RathLLMFunctionTool,
    RathLLMStreamDelta,
    RathLLMTokenUsage,
)
from rath.llm._openai_stream import OpenAIStreamAnswer
from rath.llm.chat_request import RathLLMChatRequest, RathLLMMessage
from rath.llm.chat_response import RathLLMChatResponse, add_usage
from rath.llm.openai import (
    RathOpenAIChatClient,
    normalize_chat_completion,
    to_create_kwargs,
    to_create_kwargs_stream,
)
from rath.testing import FakeChatServer, error_reply, text_reply, tool_call_reply

SCHEMA = {
    "type": "object",
    "properties": {"q": {"type": "object", "properties": {}, "additionalProperties": False}},
    "additionalProperties": False,
}
REQUEST = RathLLMChatRequest(
    messages=[RathLLMMessage("system", "Be brief."), RathLLMMessage("user", "hi")],
    tools=[RathLLMFunctionTool("search", SCHEMA, "Search.")],
    tool_choice="auto",
    temperature=0.5,
)


@pytest.fixture(autouse=True)
def _no_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENRATH_HOME", str(tmp_path / "openrath"))
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_DEFAULT_MODEL"):
        monkeypatch.delenv(name, raising=False)


def test_the_request_and_the_normalised_answer() -> None:
    with FakeChatServer([text_reply("Hello.", usage=(12, 3))]) as server:
        client = RathOpenAIChatClient(Provider(model="fake-model", base_url=server.base_url))
        response = client.complete(REQUEST)
        body = server.requests[0].body
        client.close()
    assert body["model"] == "fake-model" and body["temperature"] == 0.5
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
    ]
    function = body["tools"][0]["function"]
    assert function["name"] == "search" and "additionalProperties" not in str(function)
    assert isinstance(response, RathLLMChatResponse)
    assert response.primary_choice.message.content == "Hello."
    assert response.primary_choice.finish_reason == "stop"
    assert response.usage == RathLLMTokenUsage(12, 3, 15)


def test_tool_calls_come_back_parsed() -> None:
    reply = tool_call_reply(("search", {"q": {}}), ("search", "{broken"))
    with FakeChatServer([reply]) as server:
        client = RathOpenAIChatClient(Provider(model="m", base_url=server.base_url))
        calls = client.complete(REQUEST).primary_choice.message.tool_calls
    assert calls is not None and [c.function.name for c in calls] == ["search", "search"]
    assert calls[0].function.arguments_parsed == {"q": {}}
    assert calls[0].function.arguments_parse_error is False
    assert calls[1].function.arguments_parsed is None and calls[1].function.arguments_parse_error


def test_a_server_error_is_retried_and_a_rejection_is_not() -> None:
    script = [error_reply(500, "blip"), text_reply("ok"), error_reply(400, "bad request")]
    with FakeChatServer(script) as server:
        provider = Provider(model="m", base_url=server.base_url, retry_base_seconds=0.01)
        client = RathOpenAIChatClient(provider)
        assert client.complete(REQUEST).primary_choice.message.content == "ok"
        with pytest.raises(ProviderError, match="400") as info:
            client.complete(REQUEST)
        assert len(server.requests) == 3
    assert info.value.retryable is False


def test_a_streamed_answer_comes_as_deltas() -> None:
    with FakeChatServer([text_reply("Hello there.", usage=(4, 2))]) as server:
        client = RathOpenAIChatClient(Provider(model="m", base_url=server.base_url))
        deltas = list(client.complete_stream(REQUEST))
        body = server.requests[0].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert "".join(d.content_delta or "" for d in deltas) == "Hello there."
    assert RathLLMStreamDelta(finish_reason="stop") in deltas
    assert deltas[-1] == RathLLMStreamDelta(usage=RathLLMTokenUsage(4, 2, 6))


def test_no_key_and_no_server_is_refused() -> None:
    with pytest.raises(ConfigError, match="No API key found") as info:
        RathOpenAIChatClient(Provider(model="m"))
    assert isinstance(info.value, ValueError)


def test_the_pure_helpers() -> None:
    with pytest.raises(ConfigError, match="model is required"):
        to_create_kwargs(REQUEST, default_model=None)
    streaming = RathLLMChatRequest(messages=[], extra_create_args={"stream": True})
    with pytest.raises(ValueError, match="stream"):
        to_create_kwargs(streaming, default_model="m")
    extra = RathLLMChatRequest(messages=[], temperature=0.1, extra_create_args={"temperature": 1})
    assert to_create_kwargs(extra, default_model="m")["temperature"] == 1
    assert to_create_kwargs_stream(streaming, default_model="m")["stream"] is True
    odd = normalize_chat_completion(
        {"id": "x", "choices": [{"index": 0, "finish_reason": "weird", "message": {}}]}
    )
    assert odd.primary_choice.finish_reason == "stop" and odd.usage is None
    with pytest.raises(IndexError):
        _ = normalize_chat_completion({"id": "x", "choices": []}).primary_choice
    assert add_usage(None, None) is None
    total = add_usage(RathLLMTokenUsage(1, 2, 3), RathLLMTokenUsage(4, 5, 9))
    assert total == RathLLMTokenUsage(5, 7, 12)


def test_a_usage_only_chunk_without_counts_yields_no_delta() -> None:
    # The SDK dumps ``"usage": {}`` as a block of None counts (issue 29, item 5).
    raw = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    chunk = construct_type(type_=ChatCompletionChunk, value={**raw, "choices": [], "usage": {}})
    answer = OpenAIStreamAnswer(where="test", model="m")
    assert answer.feed(chunk.model_dump()) == []
    counted = {**raw, "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 0}}
    assert len(answer.feed(counted)) == 1
