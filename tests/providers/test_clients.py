"""Chat clients and their registry, used directly against fake servers on loopback."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from pathlib import Path

import pytest
from wires import HELLO, MODELS, TEST_KEY, WIRES, complete, fake_server, provider_for

from rath.errors import ConfigError
from rath.llm import (
    ChatClients,
    Provider,
    ProviderError,
    ProviderSpec,
    RathLLMAssistantMessage,
    RathLLMChatChoice,
    RathLLMChatRequest,
    RathLLMChatResponse,
    describe_image,
    register_chat_client,
    registered_kinds,
)
from rath.llm.aio import AsyncChatClient, async_chat_client_for
from rath.llm.credentials import CredentialVault
from rath.llm.provider import provider_from_spec, spec_from_provider
from rath.testing import (
    error_reply,
    function_handler,
    gated,
    raw_reply,
    text_reply,
    tool_call_reply,
    truncated,
)


def _failure(provider: Provider) -> ProviderError:
    with pytest.raises(ProviderError) as info:
        complete(provider)
    return info.value


def test_builtin_kinds_and_the_model_shorthand() -> None:
    assert {"anthropic", "demo", "openai"} <= set(registered_kinds())
    anthropic = Provider(model="anthropic:claude-sonnet-4-5")
    assert (anthropic.provider_kind, anthropic.model) == ("anthropic", "claude-sonnet-4-5")
    assert str(anthropic) == "claude-sonnet-4-5"
    openai = Provider(model="openai:gpt-4o-mini", provider_kind="openai")
    assert (openai.provider_kind, openai.model) == ("openai", "gpt-4o-mini")
    ollama = Provider(model="llama3:8b", base_url="http://127.0.0.1:11434/v1")
    assert (ollama.provider_kind, ollama.model) == (None, "llama3:8b")
    with pytest.raises(ConfigError, match="drop one of them"):
        Provider(model="anthropic:claude-x", provider_kind="openai")


def test_unknown_kind_is_a_config_error_listing_the_kinds() -> None:
    with pytest.raises(ConfigError, match=r"unknown provider kind 'nope'.*anthropic, demo"):
        ChatClients(CredentialVault()).client(ProviderSpec(kind="nope", model="m"))
    with pytest.raises(ConfigError, match="without ':'"):
        register_chat_client("a:b", lambda spec, key: _EchoClient(spec.model or ""))


class _EchoClient:
    """A custom client: answers with the last user message."""

    def __init__(self, model: str) -> None:
        self._model = model

    @property
    def kind(self) -> str:
        return "echo-test"

    @property
    def model(self) -> str:
        return self._model

    async def acomplete(self, req: RathLLMChatRequest) -> RathLLMChatResponse:
        text = f"echo {req.messages[-1].content}"
        message = RathLLMAssistantMessage(content=text)
        return RathLLMChatResponse("", (RathLLMChatChoice(0, "stop", message),), 0, "")

    async def aclose(self) -> None:
        pass


def test_a_registered_kind_serves_its_shorthand() -> None:
    register_chat_client("echo-test", lambda spec, key: _EchoClient(spec.model or ""))
    provider = Provider(model="echo-test:parrot")
    assert provider.provider_kind == "echo-test"
    client = async_chat_client_for(provider)
    assert isinstance(client, AsyncChatClient) and client.model == "parrot"
    assert complete(provider).content == "echo hello"


def test_several_key_names_travel_as_references_and_round_trip() -> None:
    provider = Provider(model="anthropic:claude-x", api_key_env=["KEY_A", "KEY_B"])
    spec = spec_from_provider(provider, demo_fallback=True)
    assert (spec.kind, spec.api_key_ref, spec.api_key_fallback_refs) == (
        "anthropic",
        "env:KEY_A",
        ("env:KEY_B",),
    )
    assert spec.key_refs() == ("env:KEY_A", "env:KEY_B")
    assert spec_from_provider(provider_from_spec(spec), demo_fallback=True) == spec
    # A key held in memory is tried first, then the named variables.
    local = spec_from_provider(
        Provider(model="m", api_key="sk-x", api_key_env="KEY_B"),
        api_key_ref="local:abc",
        demo_fallback=True,
    )
    assert local.key_refs() == ("local:abc", "env:KEY_B")


@pytest.mark.parametrize(
    ("wire", "variable"), [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")]
)
def test_no_key_names_the_variables_to_set(
    wire: str, variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigError, match=variable):
        async_chat_client_for(Provider(provider_kind=wire, model="m"))
    with pytest.raises(ConfigError, match="MY_A or MY_B"):
        async_chat_client_for(Provider(provider_kind=wire, model="m", api_key_env=("MY_A", "MY_B")))


@pytest.mark.parametrize("wire", WIRES)
def test_text_tool_calls_and_usage_come_back_alike(wire: str) -> None:
    script = [
        tool_call_reply(("read_workspace_file", {"path": "a.txt"}), content="Let me look."),
        text_reply("done", usage=(7, 3)),
    ]
    with fake_server(wire, script) as server:
        provider = provider_for(wire, server.base_url)
        first = complete(provider)
        second = complete(provider)
    assert first.content == "Let me look."
    assert first.finish_reason == "tool_calls"
    assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [
        ("call_0_read_workspace_file", "read_workspace_file", '{"path": "a.txt"}')
    ]
    assert (second.content, second.finish_reason, second.model) == ("done", "stop", MODELS[wire])
    assert second.usage is not None
    assert (second.usage.prompt_tokens, second.usage.total_tokens) == (7, 10)
    assert server.requests[0].api_key == TEST_KEY


@pytest.mark.parametrize(
    ("status", "retryable"),
    [
        (400, False),
        (401, False),
        (403, False),
        (404, False),
        (422, False),
        (408, True),
        (409, True),
        (429, True),
        (500, True),
        (503, True),
        (529, True),
    ],
)
@pytest.mark.parametrize("wire", WIRES)
def test_statuses_are_classified_once(wire: str, status: int, retryable: bool) -> None:
    with fake_server(wire, [error_reply(status, "nope", headers={"retry-after": "7"})]) as server:
        url = server.base_url
        error = _failure(provider_for(wire, url))
        assert len(server.requests) == 1  # max_retries=0: the SDK never retries on its own
    assert (error.error_type, error.status, error.retryable) == (
        f"LLMHTTP{status}",
        status,
        retryable,
    )
    assert error.retry_after == (7.0 if retryable else None)
    assert str(error) == (
        f"{wire} at {url} answered HTTP {status} for model {MODELS[wire]!r}: nope"
    )


@pytest.mark.parametrize("wire", WIRES)
def test_the_server_can_say_whether_to_retry(wire: str) -> None:
    reply = error_reply(503, "down for good", headers={"x-should-retry": "false"})
    with fake_server(wire, [reply]) as server:
        assert _failure(provider_for(wire, server.base_url)).retryable is False


@pytest.mark.parametrize("wire", WIRES)
def test_broken_responses_are_retryable_bad_responses(wire: str) -> None:
    script = [
        raw_reply(200, b'{"choices": ['),
        raw_reply(200, b'{"unexpected": true}'),
        raw_reply(200, b"<html>gateway</html>", content_type="text/html"),
        truncated(text_reply("x" * 300)),
    ]
    with fake_server(wire, script) as server:
        errors = [_failure(provider_for(wire, server.base_url)) for _ in script]
    assert [(e.error_type, e.retryable) for e in errors] == [("LLMBadResponse", True)] * 4
    assert "incomplete response" in str(errors[3])


@pytest.mark.parametrize("wire", WIRES)
def test_timeouts_and_refused_connections_are_retryable(wire: str) -> None:
    held = threading.Event()
    with fake_server(wire, [gated(text_reply("late"), held, timeout=10)]) as server:
        url = server.base_url
        error = _failure(provider_for(wire, url, request_timeout=0.3))
        held.set()
    assert (error.error_type, error.retryable) == ("LLMTimeout", True)
    assert "within 0.3s" in str(error)
    refused = _failure(provider_for(wire, url))  # the server is stopped now
    assert (refused.error_type, refused.retryable) == ("LLMConnectionError", True)


@pytest.mark.parametrize("wire", WIRES)
def test_keys_never_reach_error_messages(wire: str) -> None:
    secret = "sk-live-abcdef0123456789"
    echo = function_handler(lambda r: error_reply(401, f"Incorrect API key provided: {r.api_key}"))
    with fake_server(wire, echo) as server:
        error = _failure(provider_for(wire, server.base_url, api_key=secret))
    assert secret not in str(error) and "***" in str(error)


@pytest.mark.parametrize("wire", WIRES)
def test_fallback_client_prefers_the_key_that_worked(
    wire: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATH_TEST_KEY_A", "key-a-rejected")
    monkeypatch.setenv("RATH_TEST_KEY_B", "key-b-accepted")
    handler = function_handler(
        lambda r: text_reply("in") if r.api_key == "key-b-accepted" else error_reply(403, "no")
    )

    async def twice(provider: Provider) -> list[str | None]:
        client = ChatClients(CredentialVault()).client(
            spec_from_provider(provider, demo_fallback=False)
        )
        try:
            return [
                (await client.acomplete(HELLO)).primary_choice.message.content for _ in range(2)
            ]
        finally:
            await client.aclose()

    with fake_server(wire, handler) as server:
        provider = provider_for(
            wire, server.base_url, api_key=None, api_key_env=("RATH_TEST_KEY_A", "RATH_TEST_KEY_B")
        )
        assert asyncio.run(twice(provider)) == ["in", "in"]
        assert [r.api_key for r in server.requests] == [
            "key-a-rejected",
            "key-b-accepted",
            "key-b-accepted",
        ]


def test_a_rejected_key_is_left_even_when_the_next_one_fails_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Key A revoked, key B rate limited: the retry starts with B, not with A again."""
    monkeypatch.setenv("RATH_TEST_KEY_A", "key-a-revoked")
    monkeypatch.setenv("RATH_TEST_KEY_B", "key-b-busy")
    answers = iter([error_reply(429, "slow down"), text_reply("in")])
    handler = function_handler(
        lambda r: error_reply(401, "revoked") if r.api_key == "key-a-revoked" else next(answers)
    )

    async def attempts(provider: Provider) -> list[str]:
        client = ChatClients(CredentialVault()).client(
            spec_from_provider(provider, demo_fallback=False)
        )
        outcomes = []
        try:
            for _ in range(2):  # as Temporal retries the activity
                try:
                    outcomes.append(
                        str((await client.acomplete(HELLO)).primary_choice.message.content)
                    )
                except ProviderError as exc:
                    outcomes.append(exc.error_type)
        finally:
            await client.aclose()
        return outcomes

    with fake_server("openai", handler) as server:
        provider = provider_for(
            "openai",
            server.base_url,
            api_key=None,
            api_key_env=("RATH_TEST_KEY_A", "RATH_TEST_KEY_B"),
        )
        assert asyncio.run(attempts(provider)) == ["LLMHTTP429", "in"]
        assert [r.api_key for r in server.requests] == ["key-a-revoked", "key-b-busy", "key-b-busy"]


@pytest.mark.parametrize("wire", WIRES)
def test_describe_image_sends_an_image_part(wire: str, tmp_path: Path) -> None:
    image = tmp_path / "dot.jpg"
    image.write_bytes(b"\xff\xd8\xff fake jpeg")
    with fake_server(wire, [text_reply("  A small dot.  ")]) as server:
        text = describe_image(provider_for(wire, server.base_url), image, prompt="What is it?")
    assert text == "A small dot."
    content = server.requests[0].body["messages"][0]["content"]
    encoded = base64.b64encode(image.read_bytes()).decode()
    if wire == "openai":
        assert content == [
            {"type": "text", "text": "What is it?"},
            {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{encoded}"}},
        ]
    else:
        assert content == [
            {"type": "text", "text": "What is it?"},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/jpeg", "data": encoded},
            },
        ]


def test_describe_image_with_no_text_is_an_error() -> None:
    server = fake_server("openai", [text_reply("   ")])
    with server, pytest.raises(ProviderError, match="no text") as info:
        describe_image(provider_for("openai", server.base_url), b"png", mime="image/png")
    assert info.value.retryable is False


def test_a_429_for_exhausted_credit_is_not_retried() -> None:
    """OpenAI's insufficient_quota is a billing state: waiting and retrying cannot fix it."""
    error = {"message": "You exceeded your current quota", "type": "insufficient_quota"}
    body = json.dumps({"error": {**error, "code": "insufficient_quota"}}).encode()
    with fake_server("openai", [raw_reply(429, body)]) as server:
        failure = _failure(provider_for("openai", server.base_url))
    assert (failure.error_type, failure.retryable) == ("LLMHTTP429", False)
    assert "exceeded your current quota" in str(failure)


def test_a_server_that_omits_total_tokens_still_reports_a_total() -> None:
    """Some OpenAI-compatible servers send only the prompt and completion counts."""
    body = {
        "id": "c",
        "object": "chat.completion",
        "created": 0,
        "model": "fake-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 50},
    }
    with fake_server("openai", [raw_reply(200, json.dumps(body).encode())]) as server:
        usage = complete(provider_for("openai", server.base_url)).usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (100, 50, 150)


def test_a_tool_call_without_a_function_is_left_out() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    message = {"role": "assistant", "content": None, "tool_calls": [{"id": "c0"}, call]}
    body = {"id": "c", "model": "fake-model", "choices": [{"index": 0, "message": message}]}
    with fake_server("openai", [raw_reply(200, json.dumps(body).encode())]) as server:
        answer = complete(provider_for("openai", server.base_url))
    assert [(c.id, c.name) for c in answer.tool_calls] == [("c1", "f")]
    assert answer.finish_reason == "tool_calls"


def test_an_endpoint_never_shows_its_key() -> None:
    from rath.llm.clients.sdk import Endpoint

    endpoint = Endpoint("http://127.0.0.1:1/v1", "m", "sk-not-for-logs", 5.0)
    assert "sk-not-for-logs" not in repr(endpoint) and "sk-not-for-logs" not in str(endpoint)
