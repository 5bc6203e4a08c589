"""OpenRath's config file as the last tier for a provider: the provider's fields, then the
environment, then config.json; the key never reaches workflow history."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import FAST, history_of
from temporalio.client import Client

from rath import flow
from rath.llm import ProviderSpec
from rath.llm.chat_request import request_from_openai
from rath.llm.pool import ChatClients
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply

CONFIG_KEY = "cfg-test-key-123456"  # a test value, not a secret


def _config(home: Path, base_url: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    main = {
        "provider_kind": "openai",
        "model": "cfg-model",
        "api_key": CONFIG_KEY,
        "base_url": base_url,
    }
    (home / "config.json").write_text(
        json.dumps({"llm": {"default_provider": "main", "providers": {"main": main}}})
    )
    (home / "config.json").chmod(0o600)


@pytest.fixture
def openrath_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENRATH_HOME", str(tmp_path / "openrath"))
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_DEFAULT_MODEL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "openrath"


async def test_an_agent_uses_the_config_files_provider(
    rath_env: Settings, openrath_home: Path, client: Client
) -> None:
    with FakeChatServer([text_reply("from config")]) as server:
        _config(openrath_home, server.base_url)
        out = flow.Agent("Hi.", provider=flow.Provider(), options=FAST)(
            Session.from_user_message("hello")
        )
        await out.ready()
        (request,) = server.requests
    assert request.api_key == CONFIG_KEY and request.model == "cfg-model"
    assert out.run_id is not None
    history = await history_of(client, out.run_id)
    assert CONFIG_KEY not in str(history.to_json())


def test_the_environment_wins_over_the_file(
    rath_env: Settings, openrath_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "env-test-key-123456")
    with FakeChatServer([text_reply("env")]) as server:
        _config(openrath_home, server.base_url)
        out = flow.Agent("Hi.", model="explicit-model", options=FAST)(
            Session.from_user_message("hello")
        )
        out.synchronize()
        (request,) = server.requests
    assert request.api_key == "env-test-key-123456" and request.model == "explicit-model"


async def test_a_worker_reads_its_config_file_for_a_spec_without_a_key(
    openrath_home: Path,
) -> None:
    with FakeChatServer([text_reply("worker")]) as server:
        _config(openrath_home, server.base_url)
        spec = ProviderSpec(kind="openai", model="m", base_url=server.base_url)
        clients = ChatClients()
        chat = await clients.aclient(spec)
        completion = await chat.acomplete(request_from_openai([{"role": "user", "content": "x"}]))
        await clients.aclose()
        (request,) = server.requests
    assert completion.primary_choice.message.content == "worker" and request.api_key == CONFIG_KEY
