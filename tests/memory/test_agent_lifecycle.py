"""An Agent's lifecycle (OpenRath's): it holds one reference to a store object it is given,
``close()`` and ``with`` release it, and the store closes when its last holder lets go."""

from __future__ import annotations

from pathlib import Path

import pytest

from rath import flow
from rath.memory import LocalMemoryStore, MemoryStoreClosed


def test_agents_share_a_store_until_the_last_one_closes(tmp_path: Path) -> None:
    store = LocalMemoryStore(tmp_path / "memory.db")
    assert store.refcount == 0
    first = flow.Agent("x", model="m", memory=store)
    second = flow.Agent("y", model="m", memory=store)
    assert store.refcount == 2
    record = first.remember_memory("The user prefers dark mode.")
    first.close()
    first.close()  # idempotent
    assert store.refcount == 1
    # Still open for the other holder.
    assert [hit.uri for hit in second.recall_memory("dark mode")] == [record.uri]
    with pytest.raises(MemoryStoreClosed, match="agent was closed"):
        first.recall_memory("dark mode")
    second.close()
    assert store.refcount == 0
    with pytest.raises(MemoryStoreClosed) as info:
        store.acquire()
    assert isinstance(info.value, RuntimeError)
    store.release()  # a no-op once closed


def test_with_agent_releases_its_store(tmp_path: Path) -> None:
    store = LocalMemoryStore(tmp_path / "memory.db")
    with store:
        with flow.Agent("x", model="m", memory=store) as agent:
            assert store.refcount == 2
            agent.remember_memory("Tea, not coffee.")
        assert store.refcount == 1
        assert [r.content for r in store.list()] == ["Tea, not coffee."]
    assert store.refcount == 0
    with pytest.raises(MemoryStoreClosed):
        flow.Agent("z", model="m", memory=store)


def test_closing_an_agent_without_a_store_object_is_harmless() -> None:
    with flow.Agent("x", model="m") as agent:
        pass
    agent.close()
