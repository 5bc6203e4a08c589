"""FakeChatServer over real loopback HTTP, driven by the official openai SDK."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

import httpx
import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from rath.testing import (
    FakeChatServer,
    Handler,
    RecordedRequest,
    Reply,
    ToolCallSpec,
    error_reply,
    function_handler,
    gated,
    raw_reply,
    scripted,
    text_reply,
    tool_call_reply,
)

USER: list[ChatCompletionMessageParam] = [{"role": "user", "content": "hello"}]


def client_for(server: FakeChatServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0, timeout=10)


@pytest.fixture
def serve() -> Iterator[list[FakeChatServer]]:
    started: list[FakeChatServer] = []
    yield started
    for server in started:
        server.stop()


def start(
    serve: list[FakeChatServer], handler: Handler | Sequence[Reply]
) -> tuple[FakeChatServer, openai.OpenAI]:
    server = FakeChatServer(handler).start()
    serve.append(server)
    return server, client_for(server)


def test_text_reply_parses(serve: list[FakeChatServer]) -> None:
    server, client = start(serve, [text_reply("hi there", usage=(7, 3))])
    completion = client.chat.completions.create(model="gpt-test", messages=USER)
    choice = completion.choices[0]
    assert choice.message.content == "hi there"
    assert choice.message.role == "assistant"
    assert choice.finish_reason == "stop"
    assert completion.model == "gpt-test"
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.total_tokens) == (7, 10)
    assert server.base_url.startswith("http://127.0.0.1:")
    assert server.base_url.endswith("/v1")


def test_usage_omitted_when_none(serve: list[FakeChatServer]) -> None:
    _, client = start(serve, [text_reply("x", usage=None)])
    completion = client.chat.completions.create(model="m", messages=USER)
    assert completion.usage is None


def test_recorded_request(serve: list[FakeChatServer]) -> None:
    server, client = start(serve, [text_reply("ok")])
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    client.chat.completions.create(model="m1", messages=USER, tools=tools)
    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer test"
    assert request.model == "m1"
    assert request.messages == USER
    assert request.tools == tools
    assert RecordedRequest("/x", {}, {}).tools == []


def test_tool_calls(serve: list[FakeChatServer]) -> None:
    reply = tool_call_reply(
        ("read_file", {"path": "a.txt"}),
        ("broken", '{"path": '),
        ToolCallSpec("custom", {"n": 1}, id="call_xyz"),
        content="calling",
    )
    _, client = start(serve, [reply])
    completion = client.chat.completions.create(model="m", messages=USER)
    message = completion.choices[0].message
    assert completion.choices[0].finish_reason == "tool_calls"
    assert message.content == "calling"
    calls = message.tool_calls or []
    assert [c.id for c in calls] == ["call_0_read_file", "call_1_broken", "call_xyz"]
    assert [c.function.name for c in calls] == ["read_file", "broken", "custom"]
    assert json.loads(calls[0].function.arguments) == {"path": "a.txt"}
    assert calls[1].function.arguments == '{"path": '


def test_script_order_then_exhausted(serve: list[FakeChatServer]) -> None:
    server, client = start(serve, [text_reply("one"), text_reply("two")])
    for expected in ("one", "two"):
        completion = client.chat.completions.create(model="m", messages=USER)
        assert completion.choices[0].message.content == expected
    with pytest.raises(openai.InternalServerError) as info:
        client.chat.completions.create(model="m", messages=USER)
    assert info.value.status_code == 500
    assert "script exhausted" in str(info.value)
    assert len(server.requests) == 3


def test_scripted_and_function_handler(serve: list[FakeChatServer]) -> None:
    _, client = start(serve, scripted(text_reply("a")))
    completion = client.chat.completions.create(model="m", messages=USER)
    assert completion.choices[0].message.content == "a"

    echo = function_handler(lambda request: f"echo {request.messages[-1]['content']}")
    _, client = start(serve, echo)
    completion = client.chat.completions.create(model="m", messages=USER)
    assert completion.choices[0].message.content == "echo hello"


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (400, openai.BadRequestError),
        (401, openai.AuthenticationError),
        (403, openai.PermissionDeniedError),
        (404, openai.NotFoundError),
        (500, openai.InternalServerError),
        (503, openai.InternalServerError),
    ],
)
def test_error_statuses(
    serve: list[FakeChatServer], status: int, error: type[openai.APIStatusError]
) -> None:
    _, client = start(serve, [error_reply(status, "boom")])
    with pytest.raises(error) as info:
        client.chat.completions.create(model="m", messages=USER)
    assert info.value.status_code == status
    assert isinstance(info.value.body, dict)
    assert info.value.body["message"] == "boom"


def test_rate_limit_with_retry_after(serve: list[FakeChatServer]) -> None:
    _, client = start(serve, [error_reply(429, "slow down", headers={"retry-after": "3"})])
    with pytest.raises(openai.RateLimitError) as info:
        client.chat.completions.create(model="m", messages=USER)
    assert info.value.response.headers["retry-after"] == "3"


def test_handler_exception_is_500(serve: list[FakeChatServer]) -> None:
    def explode(request: RecordedRequest) -> Reply:
        raise ValueError("kaput")

    _, client = start(serve, explode)
    with pytest.raises(openai.InternalServerError, match="kaput"):
        client.chat.completions.create(model="m", messages=USER)


def test_raw_malformed_json(serve: list[FakeChatServer]) -> None:
    _, client = start(serve, [raw_reply(200, b'{"id": "x", "choices": [')])
    with pytest.raises(json.JSONDecodeError):
        client.chat.completions.create(model="m", messages=USER)


def test_gated_reply_waits_for_event(serve: list[FakeChatServer]) -> None:
    release = threading.Event()
    server, client = start(serve, [gated(text_reply("late"), release, timeout=10)])
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(
            client.chat.completions.create,
            model="m",
            messages=USER,
        )
        server.wait_for_requests(1, timeout=5)
        assert not future.done()
        release.set()
        assert future.result(timeout=10).choices[0].message.content == "late"


def test_gate_timeout_is_bounded(serve: list[FakeChatServer]) -> None:
    _, client = start(serve, [gated(text_reply("never"), threading.Event(), timeout=0.2)])
    with pytest.raises(openai.InternalServerError, match="gate"):
        client.chat.completions.create(model="m", messages=USER)


def test_wait_for_requests_times_out(serve: list[FakeChatServer]) -> None:
    server, _ = start(serve, [])
    with pytest.raises(TimeoutError, match="expected 1 request"):
        server.wait_for_requests(1, timeout=0.05)


def test_stream_text_with_usage(serve: list[FakeChatServer]) -> None:
    _, client = start(serve, [text_reply("streamed hello world", usage=(4, 2))])
    stream = client.chat.completions.create(
        model="m",
        messages=USER,
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "streamed hello world"
    assert sum(1 for c in chunks if c.choices and c.choices[0].delta.content) > 1
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    usage_chunk = chunks[-1]
    assert usage_chunk.choices == []
    assert usage_chunk.usage is not None
    assert usage_chunk.usage.total_tokens == 6


def test_stream_tool_calls_reassembled(serve: list[FakeChatServer]) -> None:
    reply = tool_call_reply(("write", {"path": "a.txt", "content": "x" * 40}), ("list", {}))
    _, client = start(serve, [reply])
    with client.chat.completions.stream(model="m", messages=USER) as stream:
        final = stream.get_final_completion()
    calls = final.choices[0].message.tool_calls or []
    assert final.choices[0].finish_reason == "tool_calls"
    assert [(c.id, c.function.name) for c in calls] == [
        ("call_0_write", "write"),
        ("call_1_list", "list"),
    ]
    assert json.loads(calls[0].function.arguments) == {"path": "a.txt", "content": "x" * 40}


def test_stream_without_usage_option(serve: list[FakeChatServer]) -> None:
    _, client = start(serve, [text_reply("abc")])
    chunks = list(client.chat.completions.create(model="m", messages=USER, stream=True))
    assert all(c.choices for c in chunks)
    assert all(c.usage is None for c in chunks)


def test_models_paths_and_404(serve: list[FakeChatServer]) -> None:
    server, client = start(serve, [text_reply("no prefix")])
    assert [m.id for m in client.models.list()] == ["fake-model"]
    root = server.base_url.removesuffix("/v1")
    response = httpx.post(f"{root}/chat/completions", json={"model": "m", "messages": USER})
    assert response.json()["choices"][0]["message"]["content"] == "no prefix"
    missing = httpx.get(f"{root}/v1/nope")
    assert missing.status_code == 404
    assert "error" in missing.json()
    assert len(server.requests) == 1


def test_context_manager_and_stop() -> None:
    with FakeChatServer([text_reply("x")]) as server:
        url = server.base_url
        client_for(server).chat.completions.create(model="m", messages=USER)
    with pytest.raises(RuntimeError):
        _ = server.base_url
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{url}/models")
    server.stop()  # idempotent
