"""Memory outside workflows: rath.memory.remember, recall and commit, in process."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import fake_provider
from wires import MODELS, WIRES, fake_server, provider_for

from rath import memory
from rath.errors import ConfigError, LLMError
from rath.flow import Provider
from rath.llm import ProviderError
from rath.memory import ExtractionError, LocalMemoryStore, MemorySpec, memory_row
from rath.session import assistant_turn_chunk, user_text_chunk
from rath.testing import (
    FakeChatServer,
    RecordedRequest,
    Reply,
    error_reply,
    function_handler,
    text_reply,
)

SESSION = "5b1c9f52-0000-4000-8000-000000000002"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("RATH_HOME", str(tmp_path / "home"))
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_DEFAULT_MODEL"):
        monkeypatch.delenv(name, raising=False)
    yield tmp_path / "home"


def test_remember_and_recall_the_local_default(home: Path) -> None:
    tea = memory.remember("local", "The user drinks green tea.")
    deploy = memory.remember(
        "local", "Deploys need two approvals.", scope="agent", category="facts"
    )
    assert tea.uri.startswith("memory://user/memories/preferences/")
    assert memory.remember("local", "The user drinks green tea.") == tea  # idempotent
    assert (home / "memory" / "memory.db").is_file()
    assert [h.uri for h in memory.recall("local", "what tea does the user drink?")] == [tea.uri]
    assert memory.recall("local", "approvals", target="memory://user/memories/") == []
    assert [h.uri for h in memory.recall("local", "approvals", target="agent")] == [deploy.uri]
    named = memory.remember(MemorySpec(store="notes", scope="agent"), "Notes live elsewhere.")
    assert named.scope == "agent" and (home / "memory" / "notes.db").is_file()


def test_a_store_object_is_used_and_left_open(tmp_path: Path) -> None:
    with LocalMemoryStore(tmp_path / "m.db") as store:
        record = memory.remember(store, "The user is left-handed.")
        assert memory.recall(store, "left-handed")[0].uri == record.uri
        assert store.list() == [record]  # still open


def test_commit_calls_the_model_in_process_and_stores_facts_once(
    home: Path, tmp_path: Path
) -> None:
    with LocalMemoryStore(tmp_path / "m.db") as store:
        cat = store.remember("The user's cat is called Miso.", "user", "profile")
        rows = [
            memory_row(cat),
            user_text_chunk("I moved to Lisbon."),
            assistant_turn_chunk(content="Welcome!"),
        ]
        reply = text_reply(
            json.dumps([{"content": "The user lives in Lisbon.", "category": "profile"}])
        )
        with FakeChatServer([reply, reply]) as server:
            provider = fake_provider(server, api_key="test-key-123")
            result = memory.commit(store, rows, provider, session_id=SESSION)
            again = memory.commit(store, rows, provider, session_id=SESSION)
        assert (result.written, result.skipped) == (1, 0)
        assert result.usage is not None and result.usage.total_tokens == 15
        assert again.uris == result.uris
        assert [r.content for r in store.list()] == [cat.content, "The user lives in Lisbon."]
        assert store.list()[1].session_id == SESSION
        prompt = server.requests[0].messages[-1]["content"]
        assert "[memory]" not in prompt and "USER: I moved to Lisbon." in prompt
        assert server.requests[0].headers["authorization"] == "Bearer test-key-123"


def test_commit_errors_are_rath_errors_without_the_key(home: Path) -> None:
    rows = [user_text_chunk("I moved to Lisbon.")]
    with pytest.raises(ConfigError, match="demo model"):
        memory.commit("local", rows, Provider(provider_kind="demo"), session_id=SESSION)
    with pytest.raises(ConfigError, match="no API key"):
        memory.commit("local", rows, Provider(model="m"), session_id=SESSION)
    with FakeChatServer([error_reply(401, "bad key sk-secret-abcdef123")]) as server:
        provider = fake_provider(server, model="m", api_key="sk-secret-abcdef123")
        with pytest.raises(LLMError, match="HTTP 401") as caught:
            memory.commit("local", rows, provider, session_id=SESSION)
    assert "sk-secret" not in str(caught.value)
    with FakeChatServer([text_reply("Nothing worth remembering!")]) as server:
        provider = fake_provider(server, model="m", api_key=None)
        with pytest.raises(ExtractionError, match="not a JSON array"):
            memory.commit("local", rows, provider, session_id=SESSION)


LISBON = text_reply(json.dumps([{"content": "The user lives in Lisbon.", "category": "profile"}]))


@pytest.mark.parametrize("wire", WIRES)
def test_commit_speaks_the_providers_wire(wire: str, home: Path, tmp_path: Path) -> None:
    """Commit goes through rath.llm's client for the kind: Anthropic's Messages API too."""
    rows = [user_text_chunk("I moved to Lisbon."), assistant_turn_chunk(content="Welcome!")]
    with fake_server(wire, [LISBON]) as server, LocalMemoryStore(tmp_path / "m.db") as store:
        provider = provider_for(wire, server.base_url, temperature=0.0)
        result = memory.commit(store, rows, provider, session_id=SESSION)
        assert [r.content for r in store.list()] == ["The user lives in Lisbon."]
    assert result.written == 1 and result.usage is not None
    (request,) = server.requests
    assert request.path.endswith("/messages" if wire == "anthropic" else "/chat/completions")
    assert request.model == MODELS[wire] and request.body["temperature"] == 0.0
    prompt = request.messages[-1]["content"]
    assert "USER: I moved to Lisbon." in str(prompt)
    if wire == "anthropic":  # the extraction instructions travel as Anthropic's system field
        assert request.system and all(m["role"] != "system" for m in request.messages)


@pytest.mark.parametrize("wire", WIRES)
def test_commit_moves_to_the_next_key_when_one_is_rejected(
    wire: str, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    revoked, working = "sk-revoked-0123456789abcdef", "sk-working-0123456789abcdef"
    monkeypatch.setenv("RATH_TEST_KEY_A", revoked)
    monkeypatch.setenv("RATH_TEST_KEY_B", working)

    def check_key(request: RecordedRequest) -> Reply:
        if request.api_key != working:
            return error_reply(401, f"Incorrect API key provided: {request.api_key}")
        return LISBON

    rows = [user_text_chunk("I moved to Lisbon.")]
    keys = ("RATH_TEST_KEY_A", "RATH_TEST_KEY_B")
    with fake_server(wire, function_handler(check_key)) as server:
        provider = provider_for(wire, server.base_url, api_key=None, api_key_env=keys)
        result = memory.commit("local", rows, provider, session_id=SESSION)
        assert [r.api_key for r in server.requests] == [revoked, working]
    assert result.written == 1
    assert [h.content for h in memory.recall("local", "Lisbon")] == ["The user lives in Lisbon."]


@pytest.mark.parametrize("wire", WIRES)
def test_commit_fails_without_the_keys_when_every_key_is_rejected(
    wire: str, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    keys = ["sk-first-0123456789abcdef", "sk-second-0123456789abcdef"]
    monkeypatch.setenv("RATH_TEST_KEY_A", keys[0])
    monkeypatch.setenv("RATH_TEST_KEY_B", keys[1])
    reject = function_handler(lambda r: error_reply(401, f"Incorrect API key: {r.api_key}"))
    rows = [user_text_chunk("I moved to Lisbon.")]
    with fake_server(wire, reject) as server:
        provider = provider_for(
            wire, server.base_url, api_key=None, api_key_env=("RATH_TEST_KEY_A", "RATH_TEST_KEY_B")
        )
        with pytest.raises(ProviderError, match="all 2 API keys were rejected") as caught:
            memory.commit("local", rows, provider, session_id=SESSION)
        assert len(server.requests) == 2  # a rejected key is not retried
    assert all(key not in str(caught.value) for key in keys)


@pytest.mark.parametrize("wire", WIRES)
def test_commit_retries_a_retryable_failure_itself(wire: str, home: Path) -> None:
    script = [error_reply(529 if wire == "anthropic" else 503, "busy"), LISBON]
    rows = [user_text_chunk("I moved to Lisbon.")]
    with fake_server(wire, script) as server:
        result = memory.commit(
            "local", rows, provider_for(wire, server.base_url), session_id=SESSION
        )
        assert len(server.requests) == 2
    assert result.written == 1


def test_commit_reads_the_anthropic_key_by_default(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    rows = [user_text_chunk("I moved to Lisbon.")]
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        memory.commit("local", rows, Provider(model="anthropic:claude-x"), session_id=SESSION)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0123456789")
    with fake_server("anthropic", [LISBON]) as server:
        provider = provider_for("anthropic", server.base_url, api_key=None)
        assert memory.commit("local", rows, provider, session_id=SESSION).written == 1
        assert server.requests[0].api_key == "sk-ant-test-0123456789"


def test_anything_but_a_store_is_refused(home: Path) -> None:
    with pytest.raises(ConfigError, match="memory must be"):
        memory.recall(42, "x")  # type: ignore[arg-type]
