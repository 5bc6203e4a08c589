"""Commit helpers: the extraction prompt, parsing the model's reply, dedup, injected-row marks."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from rath.memory import (
    EXTRACTION_PROMPT,
    MEMORY_PREFIX,
    ExtractedFact,
    ExtractionError,
    MemoryRecord,
    build_extraction_messages,
    dedup_facts,
    injected_memory_uris,
    is_memory_row,
    memory_row,
    parse_extracted_facts,
)
from rath.session.chunk import (
    assistant_turn_chunk,
    system_text_chunk,
    tool_feedback_chunk,
    user_text_chunk,
)

RECORD = MemoryRecord(
    uri="memory://user/memories/preferences/abc123",
    content="The user prefers dark mode.",
    scope="user",
    category="preferences",
    created_at=datetime(2026, 1, 1, tzinfo=UTC),
)

CALL = {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}


def test_memory_rows_are_marked_and_their_uris_recovered() -> None:
    row = memory_row(RECORD)
    assert row.kind.value == "system"
    assert row.payload["content"] == f"{MEMORY_PREFIX}{RECORD.uri}\nThe user prefers dark mode."
    assert is_memory_row(row)
    assert not is_memory_row(system_text_chunk("You are helpful."))
    assert not is_memory_row(user_text_chunk(f"{MEMORY_PREFIX}I typed this myself"))
    rows = [system_text_chunk("You are helpful."), row, user_text_chunk("hi"), row]
    assert injected_memory_uris(rows) == {RECORD.uri}


def test_prompt_shows_only_conversation_text() -> None:
    rows = [
        system_text_chunk("You are a careful assistant."),
        memory_row(RECORD),
        user_text_chunk("Please read config.toml. I'm Ana, I work at Acme."),
        assistant_turn_chunk(content=None, tool_calls=[CALL]),
        tool_feedback_chunk("c1", "read_file", json.dumps({"ok": True, "content": "SECRET"})),
        assistant_turn_chunk(content="Done, Ana."),
        user_text_chunk("   "),
    ]
    messages = build_extraction_messages(rows, existing=[RECORD, "The user is called Ana."])
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == EXTRACTION_PROMPT
    body = messages[1]["content"]
    assert "- The user prefers dark mode.\n- The user is called Ana." in body
    conversation = body.split("Conversation:\n", 1)[1]
    assert conversation.split("\n\n") == [
        "SYSTEM: You are a careful assistant.",
        "USER: Please read config.toml. I'm Ana, I work at Acme.",
        "ASSISTANT: Done, Ana.",
    ]
    assert "SECRET" not in body and MEMORY_PREFIX not in body


def test_prompt_keeps_the_most_recent_rows_within_the_budget() -> None:
    rows = [user_text_chunk(f"message {i} " + "x" * 80) for i in range(50)]
    body = build_extraction_messages(rows, max_chars=1000)[1]["content"]
    assert "[earlier conversation omitted]" in body
    assert "message 49" in body and "message 0 " not in body
    assert len(body) < 1300


def test_nothing_to_extract_needs_no_call() -> None:
    rows = [memory_row(RECORD), assistant_turn_chunk(content=None, tool_calls=[CALL])]
    assert build_extraction_messages(rows) == []


@pytest.mark.parametrize(
    "reply",
    [
        '[{"content": "The user is called Ana.", "category": "profile"}]',
        '```json\n[{"content": "The user is called Ana.", "category": "profile"}]\n```',
        'Here you go:\n[{"fact": "The user is called Ana.", "category": "Profile"}]\nThanks!',
        '{"facts": [{"content": "The user is called Ana.", "category": "profile"}]}',
        '[{"uri": "memory://user/memories/profile/ana", "content": "The user is called Ana."}]',
    ],
)
def test_replies_in_common_shapes_parse(reply: str) -> None:
    assert parse_extracted_facts(reply) == [
        ExtractedFact(content="The user is called Ana.", scope="user", category="profile")
    ]


def test_plain_strings_and_junk_items() -> None:
    reply = json.dumps(
        [
            "The user  works at\nAcme.",
            {"content": "  "},
            {"content": "The user likes tea.", "category": "not a/valid category"},
            42,
            None,
            "the user works at acme",
            {"text": "The user uses vim.", "category": "preferences"},
        ]
    )
    facts = parse_extracted_facts(reply, scope="agent")
    assert facts == [
        ExtractedFact(content="The user works at Acme.", scope="agent", category="facts"),
        ExtractedFact(content="The user likes tea.", scope="agent", category="facts"),
        ExtractedFact(content="The user uses vim.", scope="agent", category="preferences"),
    ]


def test_empty_list_means_nothing_to_remember() -> None:
    assert parse_extracted_facts("[]") == []
    assert parse_extracted_facts("```\n[]\n```") == []


@pytest.mark.parametrize("reply", ["", "Nothing worth remembering.", '{"note": "x"}', "[oops"])
def test_replies_without_a_json_list_are_extraction_errors(reply: str) -> None:
    with pytest.raises(ExtractionError, match="not a JSON array") as caught:
        parse_extracted_facts(reply)
    assert caught.value.retryable is True


def test_dedup_against_existing_memories_and_within_the_batch() -> None:
    facts = [
        ExtractedFact(content="The user prefers DARK mode!"),
        ExtractedFact(content="The user lives in Porto."),
        ExtractedFact(content="the user lives in porto"),
        ExtractedFact(content="The user is called Ana."),
    ]
    kept = dedup_facts(facts, existing=[RECORD, "The user is called Ana"])
    assert [fact.content for fact in kept] == ["The user lives in Porto."]
