"""One memory store interface (issue 29 items 1, N1, 12, N3): OpenRath's handle is the store,
SQLite is a plane backend, and an agent's recall has ``.hits``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from rath import flow
from rath import memory as rath_memory
from rath.llm import Provider
from rath.memory import CommitResult, LocalMemoryStore, MemoryHits, MemorySpec, memory_spec
from rath.memory.abc import MemoryBackend, MemoryStore, MemoryStoreSpec
from rath.memory.adapters.openviking import OpenVikingBackend
from rath.memory.capabilities import MemoryCapabilities, ScopeModel
from rath.memory.op_types import (
    MemoryOp,
    MemoryOpFind,
    MemoryOpRead,
    MemoryOpSearch,
    MemoryOpWrite,
)
from rath.memory.results import (
    MemoryExecutionFailure,
    MemoryFindResult,
    MemoryHit,
    MemoryReadResult,
    MemoryResult,
    MemoryWriteResult,
)
from rath.session import ChunkTable, Session, user_text_chunk


@dataclass
class DictBackend(MemoryBackend):
    """OpenRath's way to write a test backend: a dataclass overriding open and dispatch."""

    entries: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__init__()

    @classmethod
    def capabilities(cls) -> MemoryCapabilities:
        return MemoryCapabilities(scope_model=ScopeModel.KV)

    def open(self, spec: MemoryStoreSpec | None = None) -> MemoryStore:
        return MemoryStore(backend=self, handle="dict", spec=spec)

    def dispatch(self, store: MemoryStore, op: MemoryOp) -> MemoryResult:
        if isinstance(op, MemoryOpWrite):
            self.entries[op.uri] = op.content
            return MemoryWriteResult(uri=op.uri, bytes_written=len(op.content))
        if isinstance(op, MemoryOpRead):
            if op.uri not in self.entries:
                return MemoryExecutionFailure("not_found", op.uri, op.uri)
            return MemoryReadResult(uri=op.uri, data=self.entries[op.uri], level=op.level)
        assert isinstance(op, MemoryOpFind)
        hits = [MemoryHit(uri, 1.0, text) for uri, text in self.entries.items() if op.query in text]
        return MemoryFindResult(tuple(hits[: op.top_k]))


def test_openraths_module_paths_hold_the_store_names() -> None:
    assert rath_memory.MemoryStore is MemoryStore and rath_memory.MemoryHit is MemoryHit
    assert OpenVikingBackend.name == "openviking" and MemoryOpSearch(query="q").top_k == 8
    assert MemoryHit("memory://user/a", 0.5) == MemoryHit(uri="memory://user/a", score=0.5)
    assert not hasattr(rath_memory, "BackendMemoryStore")
    assert not hasattr(rath_memory, "MemoryPlaneHit")


def test_a_dataclass_backend_overriding_open_and_dispatch_can_be_instantiated() -> None:
    backend = DictBackend()
    with backend.open() as store:
        assert store.backend is backend and store.refcount == 1
        record = store.remember("Tea, not coffee.", "agent", "drinks")
        assert record.uri.startswith("memory://agent/memories/drinks/")
        assert backend.entries == {record.uri: "Tea, not coffee."}
        (hit,) = store.recall("coffee", scope="agent")
        assert hit.uri == record.uri and hit.content == "Tea, not coffee." and hit.record
    with pytest.raises(NotImplementedError, match="overrides open"):
        backend._open(None)


def test_sqlite_is_a_plane_backend_whose_store_answers_openraths_ops(tmp_path: Path) -> None:
    assert "sqlite" in rath_memory.list_names()
    spec = MemoryStoreSpec(options={"path": str(tmp_path / "m.db")})
    with rath_memory.get("sqlite").open(spec) as store:
        assert isinstance(store, LocalMemoryStore) and isinstance(store, MemoryStore)
        uri = "memory://user/memories/preferences/theme"
        written = store.dispatch(MemoryOpWrite(uri=uri, content="The user likes dark mode."))
        assert written == MemoryWriteResult(uri=uri, bytes_written=25)
        read = store.dispatch(MemoryOpRead(uri=uri))
        assert isinstance(read, MemoryReadResult) and read.data == "The user likes dark mode."
        found = store.dispatch(MemoryOpFind(query="dark mode", top_k=3))
        assert isinstance(found, MemoryFindResult) and [h.uri for h in found.hits] == [uri]
        assert found.hits[0].record is not None and found.hits[0].lexical_score
        missing = store.dispatch(MemoryOpRead(uri="memory://user/memories/x/none"))
        assert isinstance(missing, MemoryExecutionFailure) and missing.kind == "not_found"
        assert memory_spec(store) == MemorySpec(path=str(tmp_path / "m.db"))
        assert store.forget(uri) and store.get(uri) is None
    assert store.closed


def test_raths_recall_is_a_list_with_openraths_hits(tmp_path: Path) -> None:
    with LocalMemoryStore(tmp_path / "m.db") as store:
        store.remember("The user lives in Lisbon.")
        agent = flow.Agent("x", model="m", memory=store)
        found = agent.recall_memory("Lisbon")
        assert isinstance(found, MemoryHits) and isinstance(found, list)
        assert found.hits == tuple(found) and found[0].content == "The user lives in Lisbon."
        assert found.hits[0].snippet == "The user lives in Lisbon." and found.hits[0].score > 0
        agent.close()


def test_commit_without_wait_archives_only_and_calls_no_model(tmp_path: Path) -> None:
    session = Session.from_agent_prompt("system")
    session.chunk_table = ChunkTable(
        rows=(*session.chunk_table.rows, user_text_chunk("I live in Lisbon."))
    )
    with LocalMemoryStore(tmp_path / "m.db") as store:
        # The provider's endpoint is closed: a model call would fail.
        provider = Provider(model="m", base_url="http://127.0.0.1:9/v1", api_key="sk-x")
        agent = flow.Agent("x", provider=provider, memory=store)
        result: Any = agent.commit_memory(session)
        assert isinstance(result, CommitResult) and result.written == 0
        assert "wait=True" in result.preview and store.list() == []
        agent.close()
