"""OpenRath inventory 1.1, 1.2 and 3.5: ``Session``'s constructor, attributes and lifecycle."""

from __future__ import annotations

import uuid
from datetime import timedelta
from pathlib import Path

import pytest

import rath.backend as plane
from rath.backend import BackendSandboxSpec
from rath.llm import RathLLMTokenUsage
from rath.session import (
    ChunkKind,
    ChunkRow,
    ChunkTable,
    LineageJournal,
    LineageKind,
    Session,
    SessionLineage,
    create_system_session,
    create_user_session,
    lineage_journal_tracking,
    user_text_chunk,
)


@pytest.fixture(autouse=True)
def _data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sandbox holds of placed sessions go to a data dir of this test's own."""
    monkeypatch.setenv("RATH_HOME", str(tmp_path / "home"))


def _table(*texts: str) -> ChunkTable:
    return ChunkTable(tuple(user_text_chunk(text) for text in texts))


def test_openrath_constructor_takes_the_table_positionally_and_keeps_every_field() -> None:
    table, sid, parent = _table("hi"), uuid.uuid4(), uuid.uuid4()
    legacy = SessionLineage(parent, parent, "run_session_loop")
    session = Session(
        table,
        id=sid,
        lineage=legacy,
        parent_session_ids=(parent,),
        lineage_operator="mine",
        lineage_kind=LineageKind.OP_FORK,
        lineage_extras=(("k", 1),),
        cumulative_usage=RathLLMTokenUsage(1, 2, 3),
    )
    assert session.chunk_table is table and session.id == sid
    assert (session.parent_session_ids, session.lineage_operator) == ((parent,), "mine")
    assert (session.lineage_kind, session.lineage_extras) == (LineageKind.OP_FORK, (("k", 1),))
    assert session.lineage == legacy
    assert session.cumulative_usage == RathLLMTokenUsage(1, 2, 3)
    assert Session(chunk_table=table).chunk_table.rows == table.rows


def test_an_unknown_keyword_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="chunk_tabel"):
        Session(chunk_tabel=_table("hi"))  # type: ignore[call-arg]


def test_stored_sessions_with_keys_of_older_versions_still_load() -> None:
    session = Session(_table("hi"), cumulative_usage=RathLLMTokenUsage(0, 0, 4))
    stored = session.model_dump(mode="json") | {"owner": None}
    loaded = Session.model_validate(stored)
    assert (loaded.id, loaded.chunk_table.rows) == (session.id, session.chunk_table.rows)
    assert loaded.cumulative_usage == RathLLMTokenUsage(0, 0, 4)
    assert Session.model_validate_json(session.model_dump_json()).id == session.id


def test_the_chunk_table_setter_writes_the_rows() -> None:
    session = Session.from_user_message("old")
    replacement = _table("a", "b")
    session.chunk_table = replacement
    assert session.chunk_table is replacement
    assert session.fork().chunk_table.rows == replacement.rows


def test_cumulative_usage_is_openrath_usage_and_equals_rath_usage_of_the_same_counts() -> None:
    usage = Session(_table("hi"), usage=RathLLMTokenUsage(1, 2, 3)).usage
    read = Session(_table("hi"), cumulative_usage=usage).cumulative_usage
    assert isinstance(read, RathLLMTokenUsage)
    assert read == RathLLMTokenUsage(1, 2, 3) and RathLLMTokenUsage(1, 2, 3) == read
    assert read == usage and usage == read
    assert read + RathLLMTokenUsage(1, 1, 2) == RathLLMTokenUsage(2, 3, 5)


def test_the_cumulative_usage_setter_takes_either_type() -> None:
    session = Session(_table("hi"))
    session.cumulative_usage = RathLLMTokenUsage(2, 3, 5)
    assert session.cumulative_usage == RathLLMTokenUsage(2, 3, 5)
    assert session.usage == RathLLMTokenUsage(2, 3, 5)
    session.cumulative_usage = None
    assert session.cumulative_usage is None


def test_merge_sums_openrath_usages() -> None:
    a = Session(_table("a"), cumulative_usage=RathLLMTokenUsage(1, 2, 3))
    b = Session(_table("b"), cumulative_usage=RathLLMTokenUsage(10, 20, 30))
    assert a.merge(b).cumulative_usage == RathLLMTokenUsage(11, 22, 33)
    assert a.merge(Session(_table("c"))).cumulative_usage == RathLLMTokenUsage(1, 2, 3)


def test_sandbox_backend_names_the_target_backend(tmp_path: Path) -> None:
    assert Session(_table("hi")).sandbox_backend is None
    assert Session.create("user", "hi").to("local", spec=tmp_path).sandbox_backend == "local"
    placed = Session(_table("hi"), sandbox_backend="local")
    assert placed.sandbox_backend == "local" and placed.sandbox is not None


def test_chunk_rows_and_tables_take_positional_arguments() -> None:
    row = ChunkRow(ChunkKind.USER, {"content": "hi"})
    assert row == ChunkRow(kind="user", payload={"content": "hi"}) and row.at is None
    assert ChunkTable((row,)).rows == ChunkTable(rows=(row,)).rows == (row,)
    assert ChunkTable().rows == ()


def test_to_releases_the_held_handle_and_later_opens_per_the_new_spec(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    session = Session.from_user_message("x").to("local", spec=first)
    old = session.require_sandbox()
    assert session.to("local", spec=second) is session
    assert old.closed
    new = session.require_sandbox()
    assert new is not old and Path(new.handle) == second.resolve()
    session.close_sandbox()


def test_to_takes_openrath_backend_sandbox_specs(tmp_path: Path) -> None:
    spec = BackendSandboxSpec(working_dir=str(tmp_path), timeout=timedelta(seconds=7))
    session = Session.from_user_message("x").to("local", spec=spec)
    assert session.sandbox is not None
    assert session.sandbox.spec.working_dir == str(tmp_path.resolve())
    assert session.sandbox.spec.command_timeout == 7


def test_nested_with_opens_on_the_outermost_enter_and_closes_on_its_exit(tmp_path: Path) -> None:
    session = Session.from_user_message("x").to("local", spec=tmp_path)
    with session:
        handle = session.require_sandbox()
        assert handle.refcount == 1
        with session:
            assert session.require_sandbox() is handle
        assert not handle.closed
    assert handle.closed


def test_the_constructor_binds_an_open_plane_handle(tmp_path: Path) -> None:
    handle = plane.get("local").open(BackendSandboxSpec(working_dir=str(tmp_path)))
    session = Session(_table("hi"), sandbox=handle)
    assert handle.refcount == 1 and session.require_sandbox() is handle
    assert session.sandbox_backend == "local"
    session.close_sandbox()
    assert handle.closed


def test_stamped_leaves_are_journaled_and_unstamped_sessions_are_not() -> None:
    external = LineageJournal()
    with lineage_journal_tracking(journal=external) as journal:
        leaves = [
            create_user_session("u"),
            create_system_session("s"),
            Session.create("user", "cu"),
            Session.create("system", "cs"),
        ]
        Session(_table("plain"))
        Session.from_user_message("m")
        Session.from_agent_prompt("p")
        Session.create("empty")
    assert journal is external
    assert list(external.visit_order) == [leaf.id for leaf in leaves]
