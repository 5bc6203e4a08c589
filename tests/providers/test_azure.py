"""Azure OpenAI endpoints: recognised by URL, keys from AZURE_* first, the older /openai
endpoints called with deployments and api-version; durable agents and the direct client."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import FAST

from rath import flow
from rath.llm import Provider
from rath.llm._azure import azure_style
from rath.llm.chat_request import RathLLMChatRequest, RathLLMMessage
from rath.llm.openai import RathOpenAIChatClient
from rath.llm.provider import spec_from_provider
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply


@pytest.mark.parametrize(
    ("url", "style"),
    [
        ("https://res.openai.azure.com/openai", "legacy"),
        ("https://res.openai.azure.com", "legacy"),
        ("https://res.openai.azure.com/openai/v1/", "v1"),
        ("https://res.cognitiveservices.azure.com/openai/v1", "v1"),
        ("http://127.0.0.1:9/openai", "legacy"),
        ("https://api.groq.com/openai/v1", None),
        ("https://api.openai.com/v1", None),
        (None, None),
    ],
)
def test_which_urls_are_azure(url: str | None, style: str | None) -> None:
    assert azure_style(url) == style


def test_an_azure_provider_reads_azure_keys_first() -> None:
    spec = spec_from_provider(
        Provider(model="gpt", base_url="https://res.openai.azure.com/openai/v1"),
        demo_fallback=True,
    )
    assert spec.key_refs() == (
        "env:AZURE_OPENAI_API_KEY",
        "env:AZURE_API_KEY",
        "env:OPENAI_API_KEY",
    )
    plain = spec_from_provider(Provider(model="gpt", base_url="http://h/v1"), demo_fallback=True)
    assert plain.key_refs() == ()


def _azure_url(server: FakeChatServer) -> str:
    return server.base_url.removesuffix("/v1") + "/openai"


def test_a_durable_agent_calls_an_azure_deployment(
    rath_env: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-test-key")  # a test value, not a secret
    monkeypatch.setenv("OPENAI_API_KEY", "openai-test-key")
    monkeypatch.delenv("OPENAI_API_VERSION", raising=False)
    monkeypatch.delenv("AZURE_OPENAI_API_VERSION", raising=False)
    with FakeChatServer([text_reply("Hello from Azure.")]) as server:
        agent = flow.Agent(
            "Hi.", provider=Provider(model="gpt-dep", base_url=_azure_url(server)), options=FAST
        )
        out = agent(Session.from_user_message("hello"))
        out.synchronize()
        (request,) = server.requests
    assert out.chunk_table.rows[-1].payload["content"] == "Hello from Azure."
    assert request.path == "/openai/deployments/gpt-dep/chat/completions"
    assert request.query == "api-version=2024-10-21"
    assert request.headers["api-key"] == "azure-test-key"


def test_the_direct_client_calls_azure_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENRATH_HOME", str(tmp_path))
    monkeypatch.setenv("AZURE_API_KEY", "azure-other-key")
    monkeypatch.delenv("AZURE_OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_VERSION", "2025-01-01")
    with FakeChatServer([text_reply("ok")]) as server:
        client = RathOpenAIChatClient(Provider(model="dep", base_url=_azure_url(server)))
        request = RathLLMChatRequest(messages=[RathLLMMessage("user", "hi")])
        assert client.complete(request).primary_choice.message.content == "ok"
        (sent,) = server.requests
    assert sent.path == "/openai/deployments/dep/chat/completions"
    assert sent.query == "api-version=2025-01-01" and sent.headers["api-key"] == "azure-other-key"
