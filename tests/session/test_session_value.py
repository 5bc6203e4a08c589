"""Session value semantics: construction, lineage, branching, placement, repr, serialisation."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.contrib.pydantic import pydantic_data_converter

from rath.errors import ConfigError
from rath.llm import RathLLMTokenUsage
from rath.session import ChunkKind, LineageKind, Session, TableRef, user_text_chunk
from rath.store import ChunkStore


def test_constructors_and_lineage_stamps() -> None:
    user = Session.from_user_message("hi")
    assert [r.kind for r in user.chunk_table.rows] == [ChunkKind.USER]
    assert user.chunk_table.rows[0].payload == {"content": "hi"}
    assert (user.lineage_kind, user.lineage_operator, user.parent_session_ids) == (
        LineageKind.UNKNOWN,
        "implicit",
        (),
    )
    system = Session.from_agent_prompt("be brief")
    assert system.chunk_table.rows[0].kind is ChunkKind.SYSTEM
    created = Session.create("user", "x")
    assert created.lineage_kind is LineageKind.LEAF_USER
    assert created.lineage_extras == (("source", "Session.create"),)
    assert Session.create("system", "s").lineage_kind is LineageKind.LEAF_SYSTEM
    assert len(Session.create("empty").chunk_table) == 0
    with pytest.raises(ValueError, match="'user', 'system' or 'empty'"):
        Session.create("bogus")
    assert user.id != Session.from_user_message("hi").id


def test_fork_detach_merge() -> None:
    root = Session.from_user_message("a").to("local", spec="/tmp/ws")
    fork = root.fork()
    assert fork.id != root.id
    assert fork.parent_session_ids == (root.id,)
    assert fork.lineage_kind is LineageKind.OP_FORK and fork.lineage_operator == "Session.fork"
    assert fork.table is root.table  # O(1): shared by reference, not copied
    assert fork.sandbox == root.sandbox
    detached = root.detach()
    assert detached.parent_session_ids == () and detached.lineage_kind is LineageKind.OP_DETACH
    other = Session.from_user_message("b")
    other.usage = RathLLMTokenUsage(1, 2, 3)
    root.usage = RathLLMTokenUsage(10, 20, 30)
    merged = root.merge(other)
    assert [r.payload["content"] for r in merged.chunk_table.rows] == ["a", "b"]
    assert merged.parent_session_ids == (root.id, other.id)
    assert merged.lineage_kind is LineageKind.OP_MERGE
    assert merged.usage == RathLLMTokenUsage(11, 22, 33)
    assert merged.sandbox == root.sandbox


def test_merge_refuses_different_backends(tmp_path: Path) -> None:
    a = Session.from_user_message("a").to("local", spec=tmp_path / "a")
    b = Session.from_user_message("b").to("bwrap", spec=tmp_path / "b")
    with pytest.raises(ValueError, match="targeting different backends: 'local' vs"):
        a.merge(b)


def test_to_resolves_relative_workspace_and_allocates_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    session = Session.from_user_message("x")
    assert session.to("local", spec="./work") is session
    assert session.sandbox is not None
    assert session.sandbox.spec.working_dir == str(tmp_path / "work")
    assert session.sandbox.backend == "local"
    fresh = Session.from_user_message("y").to("local")
    assert fresh.sandbox is not None and fresh.sandbox.spec.working_dir is None


def test_to_refuses_a_workspace_that_is_a_file(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a directory")
    with pytest.raises(ConfigError, match=f"sandbox workspace '{notes}' is a file"):
        Session.from_user_message("x").to("local", spec=notes)


def test_repr_is_readable_and_elides_long_transcripts() -> None:
    rows = [user_text_chunk(f"message {i}\nline two") for i in range(12)]
    text = repr(Session.from_rows(rows))
    assert text.splitlines()[0].startswith("Session(id=")
    assert "chunks=12" in text
    assert "(4 chunks omitted)" in text
    assert "message 0\\nline two" in text  # newlines escaped
    assert "message 11" in text and "message 5" not in text


def test_session_round_trips_through_the_temporal_pydantic_converter() -> None:
    session = Session.from_user_message("hello").to("local", spec="/tmp/ws").fork()
    session.usage = RathLLMTokenUsage(1, 1, 2)
    (payload,) = pydantic_data_converter.payload_converter.to_payloads([session])
    (back,) = pydantic_data_converter.payload_converter.from_payloads([payload], [Session])
    assert back == session
    assert back.chunk_table == session.chunk_table


def test_store_seals_and_loads_tables(tmp_path: Path) -> None:
    store = ChunkStore(tmp_path / "store")
    first = TableRef.inline(user_text_chunk("a"), user_text_chunk("b"))
    digest = store.seal(first)
    assert store.seal(first) == digest  # idempotent: same content, same name
    grown = TableRef.sealed(digest).append(user_text_chunk("c"))
    merged = grown.concat(TableRef.inline(user_text_chunk("d")))
    rows = store.load_rows(TableRef.sealed(store.seal(merged)))
    assert [r.payload["content"] for r in rows] == ["a", "b", "c", "d"]
    nested = TableRef.sealed(digest).concat(TableRef.sealed(store.seal(grown)))
    assert [r.payload["content"] for r in store.load_rows(nested)] == ["a", "b", "a", "b", "c"]


def test_long_chains_load_without_recursion_limits(tmp_path: Path) -> None:
    store = ChunkStore(tmp_path / "store")
    ref = TableRef()
    for i in range(2000):
        ref = TableRef.sealed(store.seal(ref.append(user_text_chunk(str(i)))))
    fresh = ChunkStore(tmp_path / "store")  # cold cache: walks the whole chain
    rows = fresh.load_rows(ref)
    assert len(rows) == 2000 and rows[-1].payload["content"] == "1999"
