"""OpenRath's module-level session API: primitives, registry, graph mode, recorder, export."""

from __future__ import annotations

import gc
import json
import uuid
from pathlib import Path

import pytest
from support import FAST, fake_provider

from rath.session import (
    LineageKind,
    LineageRecorder,
    Session,
    SessionLineage,
    create_system_session,
    create_user_session,
    detach_session,
    fork_session,
    lineage_journal_tracking,
    lineage_view_dataclass,
    run_session_loop,
    session_graph_mode,
    session_graph_mode_override,
    session_registry,
)
from rath.session.graph import (
    LineageJournal,
    export_journal_jsonl,
    export_jsonl_string,
    session_to_jsonl_row,
)
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply

ROW_KEYS = [
    "id",
    "parent_session_ids",
    "lineage_operator",
    "lineage_kind",
    "lineage_extras",
    "chunk_count",
    "cumulative_usage",
]


def test_primitives_stamp_leaves_and_delegate_to_the_methods() -> None:
    user = create_user_session("hi")
    assert (user.lineage_kind, user.lineage_operator) == (
        LineageKind.LEAF_USER,
        "create_user_session",
    )
    assert user.lineage_extras == (("source", "create_user_session"),)
    assert create_system_session("be brief").lineage_kind is LineageKind.LEAF_SYSTEM
    forked, detached = fork_session(user), detach_session(user)
    assert (forked.parent_session_ids, forked.lineage_kind) == ((user.id,), LineageKind.OP_FORK)
    assert (detached.parent_session_ids, detached.lineage_kind) == ((), LineageKind.OP_DETACH)
    assert forked.chunk_table.rows == user.chunk_table.rows


def test_graph_mode_off_leaves_new_sessions_unstamped_and_unrecorded() -> None:
    base = create_user_session("hi")
    assert session_graph_mode()
    with lineage_journal_tracking() as journal, session_graph_mode_override(False):
        assert not session_graph_mode()
        fork = base.fork()
        merged = base.merge(fork)
        leaf = create_user_session("x")
        custom = Session.from_user_message("y")
        LineageRecorder.stamp_new_session(
            custom,
            parent_session_ids=(base.id,),
            lineage_operator="mine",
            lineage_kind=LineageKind.OP_FORK,
        )
    for made in (fork, merged, leaf, custom):
        assert (made.parent_session_ids, made.lineage_kind, made.lineage_operator) == (
            (),
            LineageKind.UNKNOWN,
            "implicit",
        )
    assert journal.visit_order == []
    assert session_graph_mode()


def test_the_recorder_stamps_and_records_and_refuses_non_sessions() -> None:
    base = create_user_session("hi")
    custom = Session.from_user_message("y")
    with lineage_journal_tracking() as journal:
        LineageRecorder.stamp_new_session(
            custom,
            parent_session_ids=(base.id,),
            lineage_operator="my_op",
            lineage_kind=LineageKind.OP_CREATE,
            lineage_extras=(("k", object()),),
        )
    view = lineage_view_dataclass(custom)
    assert (view.session_id, view.parent_session_ids) == (custom.id, (base.id,))
    assert (view.lineage_operator, view.lineage_kind_str) == ("my_op", "op_create")
    assert journal.visit_order == [custom.id]
    row = session_to_jsonl_row(custom)
    assert list(row) == ROW_KEYS
    assert isinstance(row["lineage_extras"][0][1], str)  # not JSON: coerced with str()
    with pytest.raises(TypeError):
        LineageRecorder.stamp_new_session(
            "not a session",
            parent_session_ids=(),
            lineage_operator="x",
            lineage_kind=LineageKind.OP_CREATE,
        )


def test_journal_export_resolves_ids_and_skips_or_refuses_unknown_ones(tmp_path: Path) -> None:
    a = create_user_session("a")
    journal = LineageJournal()
    with lineage_journal_tracking(journal=journal):
        b = a.fork()
    unknown = uuid.uuid4()
    assert journal.append(unknown) is journal
    path = tmp_path / "out" / "journal.jsonl"
    export_journal_jsonl(journal, path)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["id"] for r in rows] == [str(b.id)]  # the unstamped input is not a visit
    assert rows[0]["parent_session_ids"] == [str(a.id)]
    assert export_jsonl_string([a, b]).count("\n") == 2


def test_the_journal_lists_what_operations_made_not_their_unstamped_root(
    tmp_path: Path,
) -> None:
    # OpenRath's example 02: fork, fork, merge, detach inside the block write 4 rows.
    with lineage_journal_tracking() as journal:
        question = Session.from_user_message("Will it rain tomorrow?")
        merged = question.fork().merge(question.fork())
        fresh = merged.detach()
    path = tmp_path / "journal.jsonl"
    export_journal_jsonl(journal, path)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(rows) == 4 and rows[-1]["id"] == str(fresh.id)
    assert question.id not in journal.visit_order
    graph = journal.graph()
    assert graph.nodes[0].id == question.id and len(graph.nodes) == 5
    graph.validate()


def test_the_registry_finds_sessions_weakly_and_tracks_the_active_one() -> None:
    registry = session_registry()
    kept = create_user_session("kept")
    registry.set_active(kept)
    assert registry.get_active_id() == kept.id and registry.get(kept.id) is kept
    dropped = create_user_session("dropped")
    registry.register(dropped)
    dropped_id = dropped.id
    del dropped
    gc.collect()
    assert registry.get(dropped_id) is None  # OpenRath's registry kept every session forever
    registry.set_active(None)
    assert registry.get_active_id() is None


def test_merge_keeps_selfs_sandbox_so_an_unbound_self_stays_unbound(tmp_path: Path) -> None:
    unbound = create_user_session("a")
    bound = create_user_session("b").to("local", spec=tmp_path)
    assert unbound.merge(bound).sandbox is None
    assert bound.merge(unbound).sandbox == bound.sandbox


def test_a_loop_registers_its_sessions_and_carries_the_legacy_lineage(
    rath_env: Settings,
) -> None:
    user, agent = create_user_session("hi"), create_system_session("Be brief.")
    with FakeChatServer([text_reply("hello")]) as server:
        out = run_session_loop(user, agent, agent_provider=fake_provider(server), options=FAST)
        registry = session_registry()
        assert registry.get_active_id() == out.id
        assert registry.get(user.id) is user and registry.get(agent.id) is agent
        assert out.lineage == SessionLineage(user.id, agent.id, "run_session_loop")
        out.synchronize()
    assert user.lineage is None
