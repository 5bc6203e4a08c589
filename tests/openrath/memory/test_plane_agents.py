"""Plane stores are Rath memory stores: the memory API and durable agents take them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import FAST, fake_provider

import rath.memory as memory
from rath import flow
from rath.errors import ConfigError
from rath.flow.memory_inject import DefaultRecallInjection, MemoryInjectionPolicy
from rath.memory import MEMORY_PREFIX, MemoryBackendNotFound, MemoryStoreSpec, injected_memory_uris
from rath.session import ChunkKind, Session
from rath.settings import Settings
from rath.testing import FakeChatServer, function_handler

DARK = "The user prefers dark mode."


def test_remember_recall_get_forget_and_list_through_the_ops(tmp_path: Path) -> None:
    store = memory.get("local").open(MemoryStoreSpec(options={"path": str(tmp_path)}))
    record = memory.remember(store, DARK)
    assert memory.remember(store, "  The user prefers   dark mode. ").uri == record.uri
    assert (tmp_path / (record.uri.removeprefix("memory://") + ".md")).read_text() == DARK
    hits = memory.recall(store, "is dark mode preferred?")
    assert [(hit.uri, hit.content) for hit in hits] == [(record.uri, DARK)]
    assert hits[0].snippet == DARK
    assert store.get(record.uri) is not None
    assert [r.uri for r in store.list(scope="user")] == [record.uri]
    assert store.forget(record.uri) and store.get(record.uri) is None
    assert not store.forget(record.uri)
    assert memory.recall(store, "dark mode") == []


def test_an_agent_holds_a_plane_store_until_closed(tmp_path: Path) -> None:
    store = memory.get("local").open(MemoryStoreSpec(options={"path": str(tmp_path)}))
    with flow.Agent("x", model="m", memory=store) as agent:
        assert store.refcount == 1
        record = agent.remember_memory(DARK)
        assert [hit.uri for hit in agent.recall_memory("dark mode").hits] == [record.uri]
    assert store.closed


def test_names_and_specs_open_plane_stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "config.json").write_text(
        json.dumps({"memory": {"providers": {"notes": {"path": str(tmp_path / "notes")}}}})
    )
    monkeypatch.setenv("OPENRATH_HOME", str(tmp_path))
    by_preset = flow.Agent("x", model="m", memory="notes")
    by_preset.remember_memory(DARK)
    assert list((tmp_path / "notes/user/memories/preferences").glob("*.md"))
    spec = MemoryStoreSpec(options={"path": str(tmp_path / "spec")})
    assert flow.Agent("x", model="m", memory=spec).recall_memory("dark").hits == ()
    with pytest.raises(MemoryBackendNotFound, match="no memory backend 'nowhere'"):
        flow.Agent("x", model="m", memory="nowhere")


def test_client_objects_in_options_cannot_travel_to_a_worker(tmp_path: Path) -> None:
    spec = MemoryStoreSpec(options={"path": str(tmp_path), "embedding": object()})
    with pytest.raises(ConfigError, match=r"option 'embedding' .* cannot be described"):
        flow.Agent("x", model="m", memory=memory.get("local").open(spec))


def test_a_durable_agent_recalls_from_a_plane_store(rath_env: Settings, tmp_path: Path) -> None:
    store = memory.get("local").open(MemoryStoreSpec(options={"path": str(tmp_path)}))
    memory.remember(store, DARK)
    with FakeChatServer(function_handler(lambda request: "ok")) as server:
        agent = flow.Agent("A.", provider=fake_provider(server), options=FAST, memory=store)
        out = agent(Session.from_user_message("Is dark mode what I like?"))
        rows = out.chunk_table.rows
        sent = [
            m["content"]
            for m in server.requests[0].messages
            if m["role"] == "system" and m["content"].startswith(MEMORY_PREFIX)
        ]
    assert len(sent) == 1 and DARK in sent[0]
    assert rows[-1].kind is ChunkKind.ASSISTANT
    agent.close()


def test_default_recall_injection_configures_the_agents_recall(tmp_path: Path) -> None:
    store = memory.get("local").open(MemoryStoreSpec(options={"path": str(tmp_path)}))
    record = memory.remember(store, DARK)
    memory.remember(store, "The agent answers in lists.", scope="agent")
    policy = DefaultRecallInjection(top_k=2, target_uri="memory://user")
    agent = flow.Agent("x", model="m", memory=store, memory_inject=policy)
    assert (agent.memory_top_k, agent.memory_target) == (2, "memory://user")
    rows = policy.inject(Session.from_user_message("dark mode or lists?"), store)
    assert [row.payload["content"] for row in rows] == [f"[memory:{record.uri}] {DARK}"]
    assert injected_memory_uris(rows) == {record.uri}  # recognised, so never committed
    assert policy.inject(Session.from_agent_prompt("no user text"), store) == ()
    assert isinstance(policy, MemoryInjectionPolicy)

    class Mine:
        def inject(self, session: Session, store: object) -> tuple[()]:
            return ()

    with pytest.raises(ConfigError, match="only DefaultRecallInjection"):
        flow.Agent("x", model="m", memory=store, memory_inject=Mine())  # type: ignore[arg-type]
