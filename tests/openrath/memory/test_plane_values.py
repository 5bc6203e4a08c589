"""OpenRath inventory 1.7 and 6.1: ops, results, failures, capabilities, errors, registry, URIs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import rath.memory as memory
from rath.memory import (
    MemoryBackend,
    MemoryBackendError,
    MemoryBackendNotFound,
    MemoryCapabilities,
    MemoryConflict,
    MemoryExecutionFailure,
    MemoryHit,
    MemoryNotFound,
    MemoryOpCommit,
    MemoryOpFind,
    MemoryOpRead,
    MemoryOpWrite,
    MemoryStoreClosed,
    ScopeModel,
    UnsupportedMemoryOp,
)
from rath.memory.uri import (
    LEGACY_MEMORY_URI_PREFIX,
    MEMORY_URI_PREFIX,
    MEMORY_URI_ROOT,
    is_memory_uri,
    memory_uri_prefix,
    to_public_uri,
    to_wire_uri,
    valid_memory_uri,
)


def test_ops_are_frozen_hashable_values_with_openraths_defaults() -> None:
    write = MemoryOpWrite(uri="memory://user/a", content="x")
    assert (write.mode, write.wait, write.timeout_seconds, write.metadata) == (
        "replace",
        False,
        None,
        None,
    )
    assert write == MemoryOpWrite(uri="memory://user/a", content="x")
    assert len({write, MemoryOpWrite(uri="memory://user/a", content="x")}) == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        write.content = "y"  # type: ignore[misc]
    assert MemoryOpRead(uri="memory://user/a").level == "detail"
    assert MemoryOpFind(query="q").top_k == 8
    commit = MemoryOpCommit(session_id="s", messages=[{"role": "user", "content": "hi"}])
    assert hash(commit) == hash(MemoryOpCommit(session_id="s", messages=[{"role": "user"}]))
    assert isinstance(write, memory.MemoryOp)


def test_a_failure_kind_outside_the_list_is_a_value_error() -> None:
    assert MemoryExecutionFailure("not_found", "gone").kind == "not_found"
    with pytest.raises(ValueError, match="unknown memory failure kind 'oops'"):
        MemoryExecutionFailure("oops", "x")


def test_errors_are_runtime_errors_in_raths_tree() -> None:
    for error in (
        UnsupportedMemoryOp("MemoryOpTree", "x"),
        MemoryBackendNotFound("nope", ["local"]),
        MemoryNotFound("memory://user/a"),
        MemoryConflict("memory://user/a"),
    ):
        assert isinstance(error, MemoryBackendError)
        assert isinstance(error, RuntimeError)
    assert "registered: local" in str(MemoryBackendNotFound("nope", ["local"]))
    assert issubclass(MemoryStoreClosed, RuntimeError)


def test_the_registry_has_local_as_default_and_openviking_registered() -> None:
    assert {"local", "openviking"} <= set(memory.list_names())
    assert memory.current() is memory.get("local")
    assert memory.get_class("local") is memory.LocalMemoryBackend
    assert memory.is_available("local")
    assert memory.preferred(["nope", "local"]) is memory.get("local")
    with pytest.raises(MemoryBackendNotFound, match="no memory backend 'nope'"):
        memory.get("nope")
    with pytest.raises(MemoryBackendNotFound):
        memory.set_default("nope")


def test_capabilities_say_what_dispatch_accepts() -> None:
    caps = memory.LocalMemoryBackend.capabilities()
    assert caps.scope_model is ScopeModel.HYBRID
    assert caps.supports_session_commit and not caps.supports_intent_search
    assert MemoryOpCommit in memory.LocalMemoryBackend.supported_ops()
    read_only = MemoryCapabilities(scope_model=ScopeModel.KV, supports_write=False)
    assert MemoryOpWrite not in read_only.ops()


def test_an_op_the_backend_does_not_run_raises_unsupported() -> None:
    class ReadOnly(MemoryBackend):
        @classmethod
        def capabilities(cls) -> MemoryCapabilities:
            return MemoryCapabilities(scope_model=ScopeModel.KV, supports_write=False)

        def _open(self, spec: object) -> tuple[str, object]:
            return "h", None

        def _dispatch(self, store: object, op: object) -> memory.MemoryResult:
            return memory.MemoryFindResult(hits=(MemoryHit("memory://user/a", 1.0),))

    store = ReadOnly().open()
    with pytest.raises(UnsupportedMemoryOp, match="does not support MemoryOpWrite"):
        store.dispatch(MemoryOpWrite(uri="memory://user/a", content="x"))
    assert store.dispatch(MemoryOpFind(query="a")).hits[0].uri == "memory://user/a"  # type: ignore[union-attr]
    store.close()
    with pytest.raises(MemoryStoreClosed):
        store.dispatch(MemoryOpFind(query="a"))


def test_uri_helpers() -> None:
    assert (MEMORY_URI_PREFIX, LEGACY_MEMORY_URI_PREFIX, MEMORY_URI_ROOT) == (
        "memory://",
        "viking://",
        "memory:/",
    )
    assert is_memory_uri("memory://user/a") and is_memory_uri("viking://user/a")
    assert not is_memory_uri("file:///etc/passwd")
    assert valid_memory_uri("memory://agent/x/y") and valid_memory_uri(MEMORY_URI_ROOT)
    assert not valid_memory_uri("memory://nowhere/x")
    assert not valid_memory_uri("memory://user/../x")
    assert to_public_uri("viking://user/a") == "memory://user/a"
    assert to_wire_uri("memory://user/a") == "viking://user/a"
    assert memory_uri_prefix("viking://x") == "viking://"
    assert memory_uri_prefix("http://x") is None


def test_rath_memory_does_not_import_the_backend_plane() -> None:
    source = "\n".join(p.read_text() for p in Path(memory.__file__).parent.rglob("*.py"))
    assert "rath.backend" not in source
