"""OpenRath's session files both ways, the crash marker, the lock, and the reader's rules."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from support import FAST, fake_provider

from rath.errors import PersistenceError
from rath.session import ChunkKind, Session, run_session_loop, user_text_chunk
from rath.session.persistence import (
    SessionWriter,
    load_session,
    register_header_migration,
    session_file,
    session_partial_file,
)
from rath.settings import Settings
from rath.testing import FakeChatServer, error_reply, text_reply, tool_call_reply

SID = "6f1c2a54-8d0e-4f43-9a51-0b0c4d6e7f80"
PARENT = "0d2f7c1e-1111-4b6a-8c3e-5f9a7b2c4d6e"
# Exactly the layout of the inventory's section 5.2: a scripted 2-round loop.
OPENRATH_FILE = [
    {
        "record_type": "header",
        "schema_version": 1,
        "id": SID,
        "created_at": "2026-03-01T10:00:00+00:00",
        "parent_session_ids": [PARENT],
        "lineage_operator": "run_session_loop",
        "lineage_kind": "op_session_loop",
        "lineage_extras": [],
        "sandbox_backend": "local",
        "sandbox_spec": {
            "image": None,
            "entrypoint": None,
            "env": {},
            "timeout_seconds": None,
            "working_dir": "/tmp/openrath-ws",
        },
        "sandbox_handle_id": None,
    },
    {"record_type": "chunk", "index": 0, "kind": "user", "payload": {"content": "write a file"}},
    {
        "record_type": "chunk",
        "index": 1,
        "kind": "assistant",
        "payload": {
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {
                        "name": "write_workspace_file",
                        "arguments": '{"path": "a.txt", "content": "hi"}',
                    },
                }
            ],
        },
    },
    {
        "record_type": "chunk",
        "index": 2,
        "kind": "tool_result",
        "payload": {
            "tool_call_id": "call_1",
            "name": "write_workspace_file",
            "content": '{"bytes_written": 2}',
        },
    },
    {"record_type": "chunk", "index": 3, "kind": "assistant", "payload": {"content": "done"}},
    {
        "record_type": "trailer",
        "closed_at": "2026-03-01T10:00:05+00:00",
        "final_chunk_count": 4,
        "cumulative_usage": {"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42},
    },
]


def _write(path: Path, records: list[dict[str, object]], torn: str = "") -> Path:
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    path.write_text(text + torn, encoding="utf-8")
    return path


def test_an_openrath_file_loads_into_rath(tmp_path: Path) -> None:
    path = _write(tmp_path / f"{SID}.jsonl", OPENRATH_FILE, torn='{"record_type": "chu')
    loaded = load_session(SID, path=path)
    assert loaded.closed and str(loaded.header.id) == SID
    assert [str(p) for p in loaded.header.parent_session_ids] == [PARENT]
    assert [r.kind for r in loaded.chunk_table.rows] == [
        ChunkKind.USER,
        ChunkKind.ASSISTANT,
        ChunkKind.TOOL_RESULT,
        ChunkKind.ASSISTANT,
    ]  # the torn last line was skipped
    assert loaded.cumulative_usage is not None and loaded.cumulative_usage.total_tokens == 42
    user, agent = loaded.to_resumable_pair(agent_prompt="Carry on.")
    assert user.id != loaded.header.id and user.chunk_table.rows == loaded.chunk_table.rows
    assert user.sandbox is not None and user.sandbox.spec.working_dir == "/tmp/openrath-ws"
    assert agent.chunk_table.rows[0].payload["content"] == "Carry on."


def test_a_rath_file_is_in_openraths_format(rath_env: Settings, tmp_path: Path) -> None:
    script = [tool_call_reply(("write_workspace_file", {"path": "a.txt", "content": "hi"}))]
    script.append(text_reply("done"))
    user = Session.from_user_message("write a file").to("local", spec=tmp_path / "ws")
    with FakeChatServer(script) as server:
        out = run_session_loop(
            user,
            Session.from_agent_prompt("Use tools."),
            agent_provider=fake_provider(server),
            options=FAST,
            persist=True,
        )
        assert session_partial_file(out.id).exists()  # the header is written at once
        out.synchronize()  # ready only once the file is complete
    path = session_file(out.id)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["record_type"] for r in records] == ["header"] + ["chunk"] * 4 + ["trailer"]
    assert set(records[0]) == set(OPENRATH_FILE[0])
    assert records[0]["lineage_kind"] == "op_session_loop" and records[0]["id"] == str(out.id)
    assert [r["index"] for r in records[1:5]] == [0, 1, 2, 3]
    # OpenRath's keys, plus the time a run's row was made (OpenRath's loader ignores it).
    assert all(set(r) - {"at"} == {"record_type", "index", "kind", "payload"} for r in records[1:5])
    assert ["at" in r for r in records[1:5]] == [False, True, True, True]
    assert set(records[-1]) == set(OPENRATH_FILE[-1])
    assert records[-1]["final_chunk_count"] == 4
    assert records[-1]["cumulative_usage"]["total_tokens"] == out.usage.total_tokens  # type: ignore[union-attr]
    assert not session_partial_file(out.id).exists()


def test_a_streamed_run_persists_too(rath_env: Settings, tmp_path: Path) -> None:
    target = tmp_path / "streamed.jsonl"
    events: list[object] = []
    with FakeChatServer([text_reply("streamed")]) as server:
        out = run_session_loop(
            Session.from_user_message("go"),
            Session.from_agent_prompt("x"),
            agent_provider=fake_provider(server),
            options=FAST,
            on_event=events.append,
            persist_path=target,
        )
        out.synchronize()
    assert events and load_session(out.id, path=target).closed
    assert load_session(out.id, path=target).chunk_table.rows[-1].payload["content"] == "streamed"


def test_a_failed_run_leaves_the_crash_marker(rath_env: Settings, tmp_path: Path) -> None:
    target = tmp_path / "out" / "failed.jsonl"
    with FakeChatServer([error_reply(400, "bad request")]) as server:
        out = run_session_loop(
            Session.from_user_message("go"),
            Session.from_agent_prompt("x"),
            agent_provider=fake_provider(server),
            options=FAST,
            persist_path=target,
        )
        with pytest.raises(RuntimeError):  # RunFailedError: OpenRath re-raised a RuntimeError
            out.synchronize()
    partial = target.with_name(target.name + ".__partial__")
    loaded = load_session(out.id, path=partial)
    assert not loaded.closed and loaded.cumulative_usage is None
    assert not target.exists()


def test_one_writer_per_session(tmp_path: Path) -> None:
    session = Session.from_user_message("x")
    with SessionWriter(session, path=tmp_path / "s.jsonl") as writer:
        writer.write_chunk(0, user_text_chunk("x"))
        with pytest.raises(PersistenceError, match="another process is already writing"):
            SessionWriter(session, path=tmp_path / "s.jsonl")
    assert load_session(session.id, path=tmp_path / "s.jsonl").closed
    with pytest.raises(RuntimeError):
        writer.write_chunk(1, user_text_chunk("late"))


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ([OPENRATH_FILE[0], OPENRATH_FILE[0]], "duplicate header"),
        ([OPENRATH_FILE[1]], "chunk record before the header"),
        ([{**OPENRATH_FILE[0], "schema_version": 2}], "refusing to downgrade"),
        (
            [OPENRATH_FILE[0], {"record_type": "chunk", "index": 0, "kind": "x", "payload": {}}],
            "invalid chunk kind",
        ),
        ([OPENRATH_FILE[0], {"record_type": "nope"}], "unknown record_type"),
    ],
)
def test_malformed_files_are_named_by_line(
    tmp_path: Path, records: list[dict[str, object]], message: str
) -> None:
    path = _write(tmp_path / "bad.jsonl", records)
    with pytest.raises(PersistenceError, match=message) as info:
        load_session(uuid.uuid4(), path=path)
    assert f"{path}:" in str(info.value)


def test_migrations_only_go_up() -> None:
    with pytest.raises(ValueError, match=r"refusing to register .* CURRENT_SCHEMA_VERSION \(1\)"):
        register_header_migration(1, lambda header: header)
