"""OpenRath inventory 6.6: the ``openviking`` backend against a real OpenViking server."""

from __future__ import annotations

import pytest
from openviking_server import OpenViking
from support import FAST, fake_provider

import rath.memory as memory
from rath import flow
from rath.memory import (
    MemoryBackendError,
    MemoryCommitResult,
    MemoryExecutionFailure,
    MemoryFindResult,
    MemoryListResult,
    MemoryOpCommit,
    MemoryOpFind,
    MemoryOpList,
    MemoryOpRead,
    MemoryOpSearch,
    MemoryOpTree,
    MemoryOpWrite,
    MemoryReadResult,
    MemoryStoreSpec,
    MemoryWriteResult,
)
from rath.memory.adapters import openviking as openviking_backend
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, function_handler

TEA = "The user drinks green tea every morning."
TEA_URI = "memory://user/memories/drinks/tea"


def _open(server: OpenViking, key: str | None = None) -> memory.MemoryStore:
    spec = MemoryStoreSpec(
        account_id=server.account,
        user_id=server.user,
        options={"url": server.url, "api_key": key or server.api_key},
    )
    return memory.get("openviking").open(spec)


def test_available_with_every_capability() -> None:
    assert memory.is_available("openviking")
    caps = memory.get_class("openviking").capabilities()
    assert caps.supports_intent_search and caps.supports_l0_l1_l2 and caps.supports_session_commit


def test_write_read_list_and_tree(openviking: OpenViking) -> None:
    with _open(openviking) as store:
        done = store.dispatch(
            MemoryOpWrite(uri="memory://user/memories/drinks/tea", content=TEA, wait=True)
        )
        assert isinstance(done, MemoryWriteResult) and done.bytes_written > 0
        read = store.dispatch(MemoryOpRead(uri="memory://user/memories/drinks/tea"))
        assert read == MemoryReadResult(
            uri="memory://user/memories/drinks/tea", data=TEA, level="detail"
        )
        raw = store.dispatch(MemoryOpRead(uri="memory://user/memories/drinks/tea", encoding=None))
        assert isinstance(raw, MemoryReadResult) and raw.data == TEA.encode()
        listed = store.dispatch(MemoryOpList(uri="memory://user/memories/drinks"))
        assert isinstance(listed, MemoryListResult)
        assert [(e.name, e.uri, e.is_dir) for e in listed.entries] == [
            ("tea", "memory://user/memories/drinks/tea", False)
        ]
        tree = store.dispatch(MemoryOpTree(uri="memory://user/memories", depth=1))
        assert isinstance(tree, MemoryListResult)
        assert "memory://user/memories/drinks/tea" in {e.uri for e in tree.entries}
        assert not any(e.name.startswith(".") for e in tree.entries)


def test_failures_come_back_with_openraths_kinds(openviking: OpenViking) -> None:
    with _open(openviking) as store:
        missing = store.dispatch(MemoryOpRead(uri="memory://user/memories/none/here"))
        assert isinstance(missing, MemoryExecutionFailure) and missing.kind == "not_found"
        bad = store.dispatch(MemoryOpWrite(uri="memory://nowhere/x", content="x"))
        assert isinstance(bad, MemoryExecutionFailure) and bad.kind == "invalid_uri"
    with _open(openviking, key="not-a-key") as stranger:
        refused = stranger.dispatch(MemoryOpRead(uri="memory://user/memories/drinks/tea"))
        assert isinstance(refused, MemoryExecutionFailure) and refused.kind == "unauthorized"


def test_without_its_client_it_is_unavailable_and_says_how_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(openviking_backend, "_SDK", "openviking_sdk_not_installed")
    assert not memory.is_available("openviking")
    reason = memory.get_class("openviking").unavailable_reason()
    assert reason is not None and "pip install 'rath[openviking]'" in reason
    with pytest.raises(MemoryBackendError, match=r"pip install 'rath\[openviking\]'"):
        memory.get("openviking").open(MemoryStoreSpec(options={"url": "http://127.0.0.1:9"}))


def test_nothing_listening_is_a_clear_error() -> None:
    spec = MemoryStoreSpec(options={"url": "http://127.0.0.1:9", "api_key": "k", "timeout": 2})
    with pytest.raises(MemoryBackendError, match="cannot connect to OpenViking"):
        memory.get("openviking").open(spec)


def test_find_and_search_rank_the_written_memory_first(openviking: OpenViking) -> None:
    with _open(openviking) as store:
        store.dispatch(
            MemoryOpWrite(uri="memory://user/memories/drinks/tea", content=TEA, wait=True)
        )
        for op in (
            MemoryOpFind(query="green tea in the morning", top_k=3),
            MemoryOpSearch(query="green tea in the morning", top_k=3),
        ):
            found = store.dispatch(op)
            assert isinstance(found, MemoryFindResult) and found.hits
            assert found.hits[0].uri == "memory://user/memories/drinks/tea"
            assert found.hits[0].snippet == TEA and found.hits[0].score > 0


def test_commit_archives_the_session(openviking: OpenViking) -> None:
    with _open(openviking) as store:
        messages = [{"role": "user", "content": "I live in Lisbon."}]
        done = store.dispatch(MemoryOpCommit(session_id="rath-s1", messages=messages))
        assert isinstance(done, MemoryCommitResult) and done.task_id
        assert str(done.archived_uri).startswith("memory://user/sessions/rath-s1/")
        assert done.extracted_count == -1


def test_raths_memory_api_and_durable_agents_use_it(
    openviking: OpenViking, rath_env: Settings
) -> None:
    store = _open(openviking)
    record = memory.remember(store, "The user writes Rust at night.", category="habits")
    assert memory.remember(store, "The user writes Rust at night.", category="habits") == record
    assert memory.recall(store, "Rust at night")[0].uri == record.uri
    described = memory.describe_store(store).model_dump_json()
    assert openviking.api_key not in described and "api_key_ref" in described
    with FakeChatServer(function_handler(lambda request: "ok")) as server:
        agent = flow.Agent("A.", provider=fake_provider(server), options=FAST, memory=store)
        agent(Session.from_user_message("When do I write Rust?")).chunk_table  # noqa: B018
        system = [m["content"] for m in server.requests[0].messages if m["role"] == "system"]
    assert any("writes Rust at night" in text for text in system)
    assert store.forget(record.uri) and store.get(record.uri) is None
    agent.close()
    assert store.closed
