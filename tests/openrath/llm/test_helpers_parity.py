"""OpenRath's exact results for the LLM helpers an audit found Rath diverging on.

Pure: no network except a fake chat server this file starts on 127.0.0.1.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from openai.types.chat import ChatCompletion

import rath.llm
import rath.llm.chat_response
from rath.config import ConfigStore
from rath.llm import (
    DEFAULT_EMBEDDING_MODEL,
    EmbeddingProvider,
    Provider,
    RathLLMChatRequest,
    RathLLMFunctionTool,
    RathLLMMessage,
    RathLLMTokenUsage,
    RathOpenAIChatClient,
    VLMProvider,
    chat_client_for,
)
from rath.llm.credentials import resolve_credential
from rath.llm.openai import normalize_chat_completion, to_create_kwargs
from rath.llm.retry import aretry_with_backoff, retry_classified, retry_with_backoff
from rath.llm.tool_args import parse_tool_arguments
from rath.session.chat_request_build import provider_into_chat_request
from rath.testing import FakeChatServer, text_reply

LLM_ENV = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_DEFAULT_MODEL",
    "AZURE_OPENAI_API_KEY",
    "AZURE_OPENAI_ENDPOINT",
    "AZURE_API_KEY",
    "OPENAI_API_VERSION",
    "AZURE_OPENAI_API_VERSION",
)


@pytest.fixture(autouse=True)
def _no_llm_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No key, endpoint or config file of the developer's steers a client."""
    for name in LLM_ENV:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "openrath-home"
    home.mkdir()
    monkeypatch.setenv("OPENRATH_HOME", str(home))
    yield


# 1. resolve_credential


def test_resolve_credential_picks_the_first_non_empty_stripped_candidate() -> None:
    assert resolve_credential("alpha", "beta") == "alpha"
    assert resolve_credential(None, "", "  ", "  gamma  ") == "gamma"


def test_resolve_credential_answers_an_empty_string_when_nothing_holds_a_key() -> None:
    assert resolve_credential(None, "", "   ") == ""
    assert resolve_credential() == ""


# 2. Where the direct OpenAI client takes its endpoint and key from


def _sdk_client(provider: Provider) -> openai.OpenAI:
    client = RathOpenAIChatClient(provider)
    return client._client


def test_the_providers_key_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    sdk = _sdk_client(Provider(api_key="from-provider"))
    assert isinstance(sdk, openai.OpenAI) and sdk.api_key == "from-provider"
    assert _sdk_client(Provider()).api_key == "from-env"


def test_no_key_anywhere_is_refused() -> None:
    with pytest.raises(ValueError, match="No API key found"):
        RathOpenAIChatClient(Provider())


def test_an_azure_v1_endpoint_from_the_environment_uses_the_plain_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "https://ex.cognitiveservices.azure.com/openai/v1")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-v1-key")
    sdk = _sdk_client(Provider())
    assert not isinstance(sdk, openai.AzureOpenAI)
    assert sdk.api_key == "azure-v1-key"
    assert "cognitiveservices.azure.com/openai/v1" in str(sdk.base_url)


def test_a_legacy_azure_endpoint_from_the_environment_uses_azure_openai(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "https://ex.openai.azure.com/openai")
    monkeypatch.setenv("AZURE_API_KEY", "azure-legacy-key")
    monkeypatch.setenv("AZURE_OPENAI_API_VERSION", "2024-12-01")
    sdk = _sdk_client(Provider())
    assert isinstance(sdk, openai.AzureOpenAI)
    assert sdk.api_key == "azure-legacy-key"
    assert sdk._api_version == "2024-12-01"
    assert str(sdk.base_url).startswith("https://ex.openai.azure.com/openai")


def test_openai_base_url_comes_before_the_azure_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "https://proxy.example/v1")
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "https://ex.openai.azure.com/openai")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    assert str(_sdk_client(Provider()).base_url).startswith("https://proxy.example/v1")


def test_an_azure_endpoint_prefers_azure_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "https://ex.cognitiveservices.azure.com/openai/v1")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-wins")
    monkeypatch.setenv("OPENAI_API_KEY", "should-be-ignored")
    assert _sdk_client(Provider()).api_key == "azure-wins"


def test_another_endpoint_prefers_the_openai_key_then_azures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.openai.com/v1")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-fallback")
    assert _sdk_client(Provider()).api_key == "azure-fallback"
    monkeypatch.setenv("OPENAI_API_KEY", "openai-wins")
    assert _sdk_client(Provider()).api_key == "openai-wins"


def test_the_azure_key_fallback_reaches_a_compatible_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-fallback")
    with FakeChatServer([text_reply("pong")]) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        client = RathOpenAIChatClient(Provider(model="m"))
        answer = client.complete(RathLLMChatRequest(messages=[RathLLMMessage("user", "ping")]))
        client.close()
        assert server.requests[0].headers["authorization"] == "Bearer azure-fallback"
    assert answer.primary_choice.message.content == "pong"


# 3. Provider's repr


def test_a_providers_repr_is_its_str_and_hides_the_key() -> None:
    provider = Provider(model="gpt-x", api_key="sk-very-secret-key")
    assert repr(provider) == str(provider) == "gpt-x"
    assert repr(Provider()) == str(Provider()) == "(no model)"


# 4. rath.llm.add_usage


def test_rath_llm_add_usage_is_openraths() -> None:
    assert rath.llm.add_usage is rath.llm.chat_response.add_usage
    detailed = RathLLMTokenUsage(1, 2, 3, completion_tokens_details={"reasoning_tokens": 1})
    assert rath.llm.add_usage(None, None) is None
    assert rath.llm.add_usage(None, detailed) is detailed
    assert rath.llm.add_usage(detailed, None) is detailed
    total = rath.llm.add_usage(detailed, RathLLMTokenUsage(4, 5, 9))
    assert total == RathLLMTokenUsage(5, 7, 12)
    assert total is not None and total.completion_tokens_details is None


# 5. chat_client_for of an unknown kind


def test_an_unknown_kind_is_a_value_error_naming_the_kinds() -> None:
    with pytest.raises(ValueError, match="unknown provider_kind") as info:
        chat_client_for(Provider(model="m", provider_kind="imaginary"))
    assert "'imaginary'" in str(info.value)
    assert "anthropic" in str(info.value) and "openai" in str(info.value)


# 6. EmbeddingProvider.from_config and VLMProvider.from_config


def _store(tmp_path: Path, llm: dict[str, Any]) -> ConfigStore:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"llm": llm}))
    return ConfigStore(path)


CHAT = {"model": "gpt-x", "api_key": "sk-chat", "base_url": "https://chat.example/v1"}
EMBED = {"model": "embedding-x", "api_key": "sk-embed", "base_url": "https://embed.example/v1"}


def test_embedding_provider_from_config_follows_openraths_order(tmp_path: Path) -> None:
    assert DEFAULT_EMBEDDING_MODEL == "text-embedding-3-small"
    both = {"default_provider": "chat", "providers": {"chat": CHAT, "embed": EMBED}}
    store = _store(tmp_path, {**both, "embedding_provider": "embed"})
    chosen = EmbeddingProvider.from_config(store=store)
    assert (chosen.model, chosen.api_key, chosen.base_url) == tuple(EMBED.values())
    named = EmbeddingProvider.from_config("chat", store=store, dimensions=8)
    assert (named.model, named.api_key, named.dimensions) == ("gpt-x", "sk-chat", 8)
    with pytest.raises(KeyError):
        EmbeddingProvider.from_config("nope", store=store)


def test_embedding_provider_falls_back_to_the_default_providers_credentials(
    tmp_path: Path,
) -> None:
    for llm in (
        {"default_provider": "chat", "providers": {"chat": CHAT}},
        # An embedding_provider naming no entry falls through to the default, as in OpenRath.
        {"default_provider": "chat", "embedding_provider": "gone", "providers": {"chat": CHAT}},
    ):
        fallback = EmbeddingProvider.from_config(store=_store(tmp_path, llm))
        assert fallback.model == DEFAULT_EMBEDDING_MODEL
        assert (fallback.api_key, fallback.base_url) == ("sk-chat", "https://chat.example/v1")


def test_embedding_provider_with_nothing_configured_is_the_default_model(tmp_path: Path) -> None:
    provider = EmbeddingProvider.from_config(store=_store(tmp_path, {"providers": {}}))
    assert provider == EmbeddingProvider(model="text-embedding-3-small")


def test_vlm_provider_from_config_takes_only_model_endpoint_and_key(tmp_path: Path) -> None:
    vision = {**EMBED, "model": "glm-4.6v", "max_tokens": 99, "temperature": 0.3}
    store = _store(
        tmp_path,
        {"default_provider": "chat", "vlm_provider": "vision", "providers": {"vision": vision}},
    )
    provider = VLMProvider.from_config(store=store)
    assert (provider.model, provider.api_key, provider.base_url) == (
        "glm-4.6v",
        "sk-embed",
        "https://embed.example/v1",
    )
    assert (provider.max_tokens, provider.temperature) == (512, None)
    assert VLMProvider.from_config("vision", store=store, max_tokens=10).max_tokens == 10


def test_vlm_provider_has_no_fallback_and_needs_a_model(tmp_path: Path) -> None:
    no_vlm = _store(tmp_path, {"default_provider": "chat", "providers": {"chat": CHAT}})
    with pytest.raises(KeyError):
        VLMProvider.from_config(store=no_vlm)
    with pytest.raises(KeyError):
        VLMProvider.from_config("nope", store=no_vlm)
    blind = _store(tmp_path, {"vlm_provider": "blind", "providers": {"blind": {"api_key": "k"}}})
    with pytest.raises(KeyError, match="names no model"):
        VLMProvider.from_config(store=blind)


# 7. parse_tool_arguments


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (None, (None, False)),
        ("", (None, False)),
        ("  ", (None, True)),
        ("[1]", (None, True)),
        ("{bad", (None, True)),
        ('{"a": 1}', ({"a": 1}, False)),
    ],
)
def test_parse_tool_arguments_matches_openrath(
    arguments: str | None, expected: tuple[dict[str, Any] | None, bool]
) -> None:
    assert parse_tool_arguments(arguments) == expected


# 8. normalize_chat_completion and to_create_kwargs


def _completion(**extra: Any) -> dict[str, Any]:
    message = {"role": "assistant", "content": "hi"}
    choice = {"index": 0, "finish_reason": "stop", "message": message}
    return {"id": "c1", "object": "chat.completion", "created": 7, "model": "m"} | {
        "choices": [choice],
        **extra,
    }


def test_an_empty_usage_block_reads_as_zero_counts() -> None:
    response = normalize_chat_completion(_completion(usage={}))
    assert response.usage == RathLLMTokenUsage(0, 0, 0)
    assert normalize_chat_completion(_completion()).usage is None


def test_raw_is_the_completion_as_a_json_ready_dict() -> None:
    usage = {"prompt_tokens": 2, "completion_tokens": 1, "total_tokens": 3}
    completion = ChatCompletion.model_validate(_completion(usage=usage))
    response = normalize_chat_completion(completion)
    assert isinstance(response.raw, dict)
    assert response.raw == completion.model_dump(mode="json")
    assert response.usage == RathLLMTokenUsage(2, 1, 3)


def test_an_empty_tools_tuple_is_sent_as_an_empty_list() -> None:
    request = RathLLMChatRequest(messages=[RathLLMMessage("user", "x")], tools=())
    assert to_create_kwargs(request, default_model="m")["tools"] == []
    bare = RathLLMChatRequest(messages=[RathLLMMessage("user", "x")])
    assert "tools" not in to_create_kwargs(bare, default_model="m")


# 9. retry with max_attempts below one


class Flaky(Exception):
    pass


def _always_failing() -> tuple[list[int], Callable[[], str]]:
    calls: list[int] = []

    def fn() -> str:
        calls.append(1)
        raise Flaky("no")

    return calls, fn


@pytest.mark.parametrize("attempts", [0, -3])
def test_fewer_than_one_attempt_means_exactly_one(attempts: int) -> None:
    calls, fn = _always_failing()
    sleeps: list[float] = []
    with pytest.raises(Flaky):
        retry_with_backoff(fn, retryable=(Flaky,), max_attempts=attempts, sleep=sleeps.append)
    assert (len(calls), sleeps) == (1, [])


def test_the_classified_retry_of_the_direct_clients_clamps_the_same_way() -> None:
    calls: list[int] = []

    def fn() -> str:
        calls.append(1)
        error = Flaky("busy")
        error.retryable = True  # type: ignore[attr-defined]
        raise error

    with pytest.raises(Flaky):
        retry_classified(fn, max_attempts=0, sleep=lambda _: None)
    assert len(calls) == 1


async def test_the_async_twin_clamps_the_same_way() -> None:
    calls: list[int] = []

    async def fn() -> str:
        calls.append(1)
        raise Flaky("no")

    async def no_wait(_: float) -> None:
        return None

    with pytest.raises(Flaky):
        await aretry_with_backoff(fn, retryable=(Flaky,), max_attempts=0, sleep=no_wait)
    assert len(calls) == 1


# 10. provider_into_chat_request

SAMPLING: dict[str, Any] = {
    "model": "gpt-x",
    "temperature": 0.2,
    "top_p": 0.9,
    "max_completion_tokens": 100,
    "max_tokens": 50,
    "stop": ["END"],
    "n": 1,
    "seed": 7,
    "frequency_penalty": 0.1,
    "presence_penalty": 0.2,
    "parallel_tool_calls": False,
    "response_format": {"type": "json_object"},
    "logit_bias": {"42": -100},
    "logprobs": True,
    "top_logprobs": 3,
    "reasoning_effort": "low",
    "verbosity": "low",
    "metadata": {"team": "a"},
    "user": "u1",
    "store": False,
    "service_tier": "auto",
    "extra_create_args": {"top_k": 5},
}


def test_provider_into_chat_request_copies_every_sampling_field() -> None:
    messages = (RathLLMMessage("user", "hi"),)
    tools = (RathLLMFunctionTool(name="t", parameters={"type": "object"}),)
    request = provider_into_chat_request(
        messages, tools, Provider(api_key="sk-x", **SAMPLING), default_tool_choice="auto"
    )
    assert request.messages == messages and request.tools == tools
    assert {name: getattr(request, name) for name in SAMPLING} == SAMPLING
    assert request.tool_choice == "auto"


def test_the_providers_tool_choice_wins_over_the_default() -> None:
    required = Provider(tool_choice="required")
    request = provider_into_chat_request((), None, required, default_tool_choice="none")
    assert (request.tool_choice, request.tools, request.model) == ("required", None, None)
    plain = provider_into_chat_request((), None, Provider(), default_tool_choice="none")
    assert plain.tool_choice == "none"
