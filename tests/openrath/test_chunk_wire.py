"""OpenRath inventory sections 1.1 and 3: the chunk helpers and their LLM wire form."""

from __future__ import annotations

import json

from rath.llm import RathLLMMessage, RathLLMToolCallFunction, RathLLMToolCallPart
from rath.session import (
    ChunkKind,
    ChunkTable,
    assistant_turn_chunk,
    chunk_table_to_messages,
    format_chunk_row_brief,
    system_text_chunk,
    tool_feedback_chunk,
    user_text_chunk,
)

CALL = RathLLMToolCallPart(
    id="call_1",
    type="function",
    function=RathLLMToolCallFunction(
        name="write_workspace_file",
        arguments='{"path": "a.txt", "content": "hi"}',
        arguments_parsed={"path": "a.txt", "content": "hi"},
        arguments_parse_error=False,
    ),
)
WIRE = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "write_workspace_file", "arguments": '{"path": "a.txt", "content": "hi"}'},
}


def test_an_assistant_turn_stores_its_tool_calls_in_wire_form() -> None:
    row = assistant_turn_chunk(tool_calls=(CALL,))
    assert row.kind is ChunkKind.ASSISTANT
    assert row.payload == {"content": None, "tool_calls": [WIRE]}
    assert assistant_turn_chunk(tool_calls=None, content="done").payload == {
        "content": "done",
        "tool_calls": None,
    }
    assert assistant_turn_chunk(tool_calls=[WIRE]).payload["tool_calls"] == [WIRE]


def test_a_table_flattens_to_messages_in_order() -> None:
    table = ChunkTable(
        rows=(
            system_text_chunk("be brief"),
            user_text_chunk("write a file"),
            assistant_turn_chunk(tool_calls=(CALL,), content="on it"),
            tool_feedback_chunk("call_1", "write_workspace_file", '{"ok": true}'),
        )
    )

    messages = chunk_table_to_messages(table)

    assert messages == (
        RathLLMMessage(role="system", content="be brief"),
        RathLLMMessage(role="user", content="write a file"),
        RathLLMMessage(role="assistant", content="on it", tool_calls=(WIRE,)),
        RathLLMMessage(role="tool", content='{"ok": true}', tool_call_id="call_1"),
    )
    assert messages[3].name is None  # a tool result's name is not sent
    assert chunk_table_to_messages(table.rows) == messages


def test_the_brief_form_shows_real_unicode_and_clips_at_400() -> None:
    body = json.dumps({"ok": True, "stdout": "héllo ✓"})  # ASCII-escaped JSON
    line = format_chunk_row_brief(3, tool_feedback_chunk("c", "run_shell_command", body))
    assert line.startswith("[3] tool_result")
    assert "héllo ✓" in line and "\\u" not in line

    long = format_chunk_row_brief(0, user_text_chunk("x" * 1000))
    assert long.endswith("...") and len(long.split(" ", 2)[2].strip()) == 400
    assert "\\n" in format_chunk_row_brief(0, user_text_chunk("two\nlines"))
