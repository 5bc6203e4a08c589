"""OpenRath parity of the memory plane: errors, the backend ABC, URIs, ingest, persistence."""

from __future__ import annotations

import hashlib
import json
import pickle
import uuid
from pathlib import Path

import pytest

import rath.memory as memory
from rath.errors import RathError
from rath.memory import (
    MemoryBackend,
    MemoryBackendError,
    MemoryBackendNotFound,
    MemoryCapabilities,
    MemoryExecutionFailure,
    MemoryListResult,
    MemoryOp,
    MemoryOpList,
    MemoryOpRead,
    MemoryOpResource,
    MemoryResult,
    MemoryStore,
    MemoryStoreClosed,
    MemoryStoreSpec,
    MemoryWriteResult,
    ScopeModel,
)
from rath.memory.persistence import PersistentMemoryRegistry
from rath.memory.uri import MEMORY_URI_ROOT, to_public_uri, to_wire_uri


class PublicMethodsBackend(MemoryBackend):
    """A backend written against OpenRath's ABC: only the public methods."""

    def __init__(self) -> None:
        self.stores: dict[str, MemoryStore] = {}

    @classmethod
    def is_available(cls) -> bool:
        return True

    @classmethod
    def capabilities(cls) -> MemoryCapabilities:
        return MemoryCapabilities(scope_model=ScopeModel.KV)

    @classmethod
    def supported_ops(cls) -> frozenset[type[MemoryOp]]:
        return frozenset({MemoryOpList})

    def store_count(self) -> int:
        return len(self.stores)

    def open(self, spec: MemoryStoreSpec | None = None) -> MemoryStore:
        store = MemoryStore(self, f"h{len(self.stores)}", spec, None)
        self.stores[store.handle] = store
        return store

    def close(self, store: MemoryStore) -> None:
        store.closed = True
        self.stores.pop(store.handle, None)

    def dispatch(self, store: MemoryStore, op: MemoryOp) -> MemoryResult:
        return MemoryListResult(entries=())


def _local(path: Path) -> MemoryStore:
    return memory.get("local").open(MemoryStoreSpec(options={"path": str(path)}))


def test_memory_store_closed_is_a_backend_error_carrying_its_handle() -> None:
    error = MemoryStoreClosed("h1")
    assert isinstance(error, MemoryBackendError) and isinstance(error, RathError)
    assert isinstance(error, RuntimeError) and error.handle == "h1" and "h1" in str(error)
    revived = pickle.loads(pickle.dumps(error))
    assert isinstance(revived, MemoryStoreClosed) and revived.handle == "h1"


def test_a_closed_store_raises_memory_store_closed_with_its_handle(tmp_path: Path) -> None:
    store = _local(tmp_path / "s")
    store.close()
    with pytest.raises(MemoryStoreClosed) as info:
        store.dispatch(MemoryOpList(uri="memory://user"))
    assert info.value.handle == store.handle


def test_a_backend_with_only_openraths_public_methods_works() -> None:
    name = f"parity-public-{uuid.uuid4().hex[:8]}"
    memory.register(name)(PublicMethodsBackend)
    backend = memory.get(name)
    store = backend.open()
    assert backend.store_count() == 1
    assert store.dispatch(MemoryOpList(uri="memory://user")) == MemoryListResult(entries=())
    store.close()
    assert backend.store_count() == 0


def test_a_backend_with_neither_open_nor_open_hook_is_abstract() -> None:
    class NoOpen(MemoryBackend):
        @classmethod
        def capabilities(cls) -> MemoryCapabilities:
            return MemoryCapabilities(scope_model=ScopeModel.KV)

        def dispatch(self, store: MemoryStore, op: MemoryOp) -> MemoryResult:
            return MemoryListResult(entries=())

    with pytest.raises(TypeError, match="_open"):
        NoOpen()


def test_the_root_uri_round_trips_through_the_wire_form() -> None:
    assert to_public_uri(to_wire_uri(MEMORY_URI_ROOT)) == "memory:/"


def test_resources_sent_to_one_target_land_in_their_own_folders(tmp_path: Path) -> None:
    store = _local(tmp_path / "s")
    target = "memory://user/memories/inbox"
    uris = []
    for name, body in (("a.txt", b"first"), ("b.txt", b"second")):
        (tmp_path / name).write_bytes(body)
        done = store.dispatch(MemoryOpResource(source=str(tmp_path / name), target_uri=target))
        assert isinstance(done, MemoryWriteResult)
        digest = hashlib.sha256(body).hexdigest()[:16]
        assert done.uri == f"{target}/{digest}"
        folder = tmp_path / "s" / "user" / "memories" / "inbox" / digest
        assert (folder / f"source{Path(name).suffix}").read_bytes() == body
        uris.append(done.uri)
    assert uris[0] != uris[1]


def test_persistent_registry_allocates_and_lists_uuids_only() -> None:
    registry = PersistentMemoryRegistry()
    first, second = registry.alloc_local_id(), registry.alloc_local_id()
    assert isinstance(first, uuid.UUID) and registry.local_path(first).is_dir()
    registry.ensure_local("named")
    registry.local_path(first.hex).mkdir()  # a UUID, but not the canonical directory name
    assert registry.list_local() == sorted([first, second])


def test_a_failures_detail_is_a_string(tmp_path: Path) -> None:
    failure = _local(tmp_path / "s").dispatch(MemoryOpRead(uri="memory://user/none"))
    assert isinstance(failure, MemoryExecutionFailure) and failure.kind == "not_found"
    assert failure.detail == "memory://user/none"


def test_scope_model_is_a_str_enum() -> None:
    assert isinstance(ScopeModel.HYBRID, str) and json.dumps(ScopeModel.HYBRID) == '"hybrid"'


def test_list_names_keeps_registration_order() -> None:
    names = [f"parity-z-{uuid.uuid4().hex[:8]}", f"parity-a-{uuid.uuid4().hex[:8]}"]
    for name in names:
        memory.register(name)(type("Ordered", (PublicMethodsBackend,), {}))
    assert memory.list_names()[:2] == ["local", "openviking"]
    assert memory.list_names()[-2:] == names


def test_backend_not_found_lists_the_available_names_as_a_list() -> None:
    with pytest.raises(MemoryBackendNotFound) as info:
        memory.get("no-such-backend")
    assert isinstance(info.value.available, list) and "local" in info.value.available
