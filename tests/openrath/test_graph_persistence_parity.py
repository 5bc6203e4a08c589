"""OpenRath parity of the lineage journal, its export, the session writer and the loop entries.

Inventory 1.1 (``run_session_loop``/``run_session_compress`` parameters), 1.2 (journal and
export), 1.3 and 5.3-5.4 (writer and loader), and 9.2.20 (a writer reopened on a finished or
abandoned file), which Rath refuses instead of reproducing.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from support import fake_provider

from rath.errors import PersistenceError
from rath.llm import Provider, RathLLMStreamDelta
from rath.llm.chat_request import RathLLMChatRequest
from rath.llm.chat_response import (
    RathLLMAssistantMessage,
    RathLLMChatChoice,
    RathLLMChatResponse,
    RathLLMTokenUsage,
)
from rath.session import (
    ChunkKind,
    ChunkRow,
    Session,
    run_session_compress,
    run_session_loop,
    session_registry,
    user_text_chunk,
)
from rath.session.graph import (
    LineageJournal,
    LineageKind,
    LineageRecorder,
    export_journal_jsonl,
    lineage_journal_tracking,
)
from rath.session.persistence import SessionWriter, load_session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply

PROVIDER = Provider(model="scripted-model")


class Scripted:
    """Answers every model call with ``text`` (and 3+2 tokens)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def complete(self, req: RathLLMChatRequest) -> RathLLMChatResponse:
        message = RathLLMAssistantMessage(content=self.text)
        return RathLLMChatResponse(
            id="scripted",
            choices=(RathLLMChatChoice(index=0, finish_reason="stop", message=message),),
            created=0,
            model="scripted-model",
            usage=RathLLMTokenUsage(3, 2, 5),
        )

    def dispatch_tool(self, session: Session, tool: Any, arguments: Any) -> Any:
        return tool(session, dict(arguments))

    def tool_schemas(self) -> tuple[()]:
        return ()


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def compress(**arguments: Any) -> Session:
    arguments.setdefault("agent_provider", PROVIDER)
    return run_session_compress(
        Session.from_user_message("a long talk"), Session.from_agent_prompt("compress"), **arguments
    )


# -- the journal and its export (1.2) -----------------------------------------------------------


def test_the_journal_is_built_like_openraths_dataclass() -> None:
    first, second = uuid.uuid4(), uuid.uuid4()
    assert LineageJournal().visit_order == []
    assert LineageJournal([]).visit_order == []
    journal = LineageJournal(visit_order=[first, second])
    assert journal.visit_order == [first, second] and isinstance(journal.visit_order, list)
    assert len(journal) == 2 and first in journal


def test_tracking_takes_the_journal_by_keyword_only() -> None:
    mine = LineageJournal()
    with lineage_journal_tracking(journal=mine) as yielded:
        assert yielded is mine
    with pytest.raises(TypeError), lineage_journal_tracking(mine):  # type: ignore[misc]
        pass


def test_a_passed_in_journal_is_mutated_in_place() -> None:
    journal = LineageJournal()
    with lineage_journal_tracking(journal=journal):
        made = Session.from_user_message("x")
        LineageRecorder.stamp_new_session(
            made, parent_session_ids=(), lineage_operator="t", lineage_kind=LineageKind.LEAF_USER
        )
    assert journal.visit_order == [made.id]


def test_export_skips_unknown_ids_by_default(tmp_path: Path) -> None:
    journal = LineageJournal(visit_order=[uuid.uuid4(), uuid.uuid4()])
    out = tmp_path / "graph.jsonl"
    export_journal_jsonl(journal, out)
    assert out.read_text(encoding="utf-8") == ""


def test_export_refuses_unknown_ids_when_asked(tmp_path: Path) -> None:
    known = Session.from_user_message("known")
    session_registry().register(known)
    journal = LineageJournal()
    journal.record(known.id)
    journal.record(uuid.uuid4())  # recorded bare: neither the registry nor the journal knows it
    with pytest.raises(KeyError):
        export_journal_jsonl(journal, tmp_path / "graph.jsonl", skip_unknown=False)
    export_journal_jsonl(journal, tmp_path / "graph.jsonl")
    assert [r["id"] for r in records(tmp_path / "graph.jsonl")] == [str(known.id)]


# -- the writer (1.3, 5.3, 9.2.20) ---------------------------------------------------------------


def test_a_writer_refuses_an_abandoned_file(tmp_path: Path) -> None:
    session, target = Session.from_user_message("x"), tmp_path / "s.jsonl"
    writer = SessionWriter(session, path=target)
    writer.write_chunk(0, user_text_chunk("x"))
    writer.abandon()
    partial = writer.partial_path
    with pytest.raises(PersistenceError, match="crashed or was abandoned") as info:
        SessionWriter(session, path=target)
    assert str(partial) in str(info.value)
    loaded = load_session(session.id, path=partial)  # still one header: loadable
    assert not loaded.closed and len(loaded.chunk_table.rows) == 1


def test_a_writer_refuses_to_replace_a_closed_file(tmp_path: Path) -> None:
    session, target = Session.from_user_message("x"), tmp_path / "s.jsonl"
    with SessionWriter(session, path=target) as writer:
        writer.write_chunk(0, user_text_chunk("kept"))
    with pytest.raises(PersistenceError, match="already holds a closed session file") as info:
        SessionWriter(session, path=target)
    assert str(target) in str(info.value)
    assert not writer.partial_path.exists()  # the refused writer leaves nothing behind
    loaded = load_session(session.id, path=target)
    assert loaded.closed and loaded.chunk_table.rows[0].payload["content"] == "kept"


def test_an_empty_partial_file_is_taken_over(tmp_path: Path) -> None:
    session, target = Session.from_user_message("x"), tmp_path / "s.jsonl"
    target.with_name(target.name + ".__partial__").touch()  # a crash before the header
    with SessionWriter(session, path=target):
        pass
    assert load_session(session.id, path=target).closed


def test_loaded_usage_is_openraths_type(tmp_path: Path) -> None:
    session, target = Session.from_user_message("x"), tmp_path / "s.jsonl"
    SessionWriter(session, path=target).close(RathLLMTokenUsage(3, 4, 7))
    assert load_session(session.id, path=target).cumulative_usage == RathLLMTokenUsage(3, 4, 7)


def test_a_rows_time_is_persisted_so_a_reloaded_row_is_equal(tmp_path: Path) -> None:
    session, target = Session.from_user_message("x"), tmp_path / "s.jsonl"
    rows = [
        ChunkRow(ChunkKind.USER, {"content": "x"}),
        ChunkRow(ChunkKind.ASSISTANT, {"content": "y"}, at=1.5),
    ]
    with SessionWriter(session, path=target) as writer:
        for index, row in enumerate(rows):
            writer.write_chunk(index, row)
    assert list(load_session(session.id, path=target).chunk_table.rows) == rows
    records = [json.loads(line) for line in target.read_text().splitlines()]
    assert [record.get("at") for record in records[1:3]] == [None, 1.5]


# -- the loop and compression entries (1.1) -----------------------------------------------------


def test_compress_refuses_on_event_with_an_executor_at_once() -> None:
    with pytest.raises(ValueError, match="on_event with a custom executor"):
        compress(executor=Scripted("x"), on_event=lambda delta: None)


def test_compress_refuses_a_taken_persist_path_before_starting(tmp_path: Path) -> None:
    target = tmp_path / "taken.jsonl"
    SessionWriter(Session.from_user_message("other"), path=target).close()
    with pytest.raises(PersistenceError, match="already holds a closed session file"):
        compress(executor=Scripted("x"), persist_path=target)


def test_the_loop_records_the_sandbox_handle_id(rath_env: Settings, tmp_path: Path) -> None:
    target = tmp_path / "loop.jsonl"
    out = run_session_loop(
        Session.from_user_message("go"),
        Session.from_agent_prompt("x"),
        agent_provider=PROVIDER,
        executor=Scripted("done"),
        persist_path=target,
        sandbox_handle_id="remote-42",
    )
    out.synchronize()
    assert load_session(out.id, path=target).header.sandbox_handle_id == "remote-42"


def test_compress_persists_its_output(rath_env: Settings, tmp_path: Path) -> None:
    target = tmp_path / "compressed.jsonl"
    out = compress(executor=Scripted(" gist "), persist_path=target, sandbox_handle_id="h-1")
    out.synchronize()
    loaded = load_session(out.id, path=target)
    assert loaded.closed and loaded.header.id == out.id
    assert loaded.header.lineage_kind is LineageKind.OP_SESSION_COMPRESS
    assert loaded.header.sandbox_handle_id == "h-1"
    assert [(r.kind, r.payload["content"]) for r in loaded.chunk_table.rows] == [
        (ChunkKind.USER, "gist")
    ]
    assert loaded.cumulative_usage == RathLLMTokenUsage(3, 2, 5)


def test_compress_registers_its_sessions_by_default(rath_env: Settings) -> None:
    out = compress(executor=Scripted("gist"))
    assert session_registry().get_active_id() == out.id
    out.synchronize()


def test_compress_can_leave_the_registry_alone(rath_env: Settings) -> None:
    registry = session_registry()
    before = Session.from_user_message("before")
    registry.set_active(before)
    out = compress(executor=Scripted("gist"), register_sessions=False)
    out.synchronize()
    assert registry.get_active_id() == before.id and registry.get(out.id) is None


def test_compress_streams_to_on_event(rath_env: Settings) -> None:
    deltas: list[RathLLMStreamDelta] = []
    with FakeChatServer([text_reply("the gist")]) as server:
        out = compress(agent_provider=fake_provider(server), on_event=deltas.append)
        rows = out.chunk_table.rows
    assert [row.payload["content"] for row in rows] == ["the gist"]
    assert "".join(d.content_delta or "" for d in deltas) == "the gist"
