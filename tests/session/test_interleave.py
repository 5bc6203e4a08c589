"""``interleave_by_time``: shared rows once, then both branches' turns in time order."""

from __future__ import annotations

import pytest

from rath.session import (
    ChunkRow,
    Session,
    assistant_turn_chunk,
    interleave_by_time,
    tool_feedback_chunk,
)
from rath.session import system_text_chunk as system
from rath.session import user_text_chunk as user


def said(text: str, at: float | None) -> ChunkRow:
    row = assistant_turn_chunk(content=text)
    return row if at is None else row.stamped(at)


def called(call_id: str, at: float) -> ChunkRow:
    wire = {"id": call_id, "type": "function", "function": {"name": "t", "arguments": "{}"}}
    return assistant_turn_chunk(content=None, tool_calls=[wire]).stamped(at)


def contents(rows: tuple[ChunkRow, ...]) -> list[object]:
    return [row.payload.get("content") or row.payload.get("tool_calls")[0]["id"] for row in rows]


def test_shared_prefix_kept_once_then_turns_by_time() -> None:
    prefix = [system("s"), user("task")]
    ours = [*prefix, said("a1", 1.0), said("a2", 4.0)]
    theirs = [*prefix, said("b1", 2.0), said("b2", 3.0)]
    assert contents(interleave_by_time(ours, theirs)) == ["s", "task", "a1", "b1", "b2", "a2"]


def test_tool_results_stay_with_the_call_they_answer() -> None:
    ours = [user("go"), called("A", 1.0), tool_feedback_chunk("A", "t", "ra").stamped(5.0)]
    theirs = [user("go"), said("b", 2.0)]
    merged = interleave_by_time(ours, theirs)
    # The result came back after b, but it belongs to call A's turn (made at 1.0).
    assert contents(merged) == ["go", "A", "ra", "b"]


def test_ties_and_unstamped_rows_keep_ours_first_and_branch_order() -> None:
    ours = [said("a1", 1.0), user("a-note"), said("a2", 3.0)]
    theirs = [said("b1", 1.0), said("b2", 2.0)]
    # a-note has no time: it stays right after a1 (it takes a1's time).
    assert contents(interleave_by_time(ours, theirs)) == ["a1", "a-note", "b1", "b2", "a2"]


def test_a_branch_is_never_reordered_even_when_its_times_go_backwards() -> None:
    ours = [said("a1", 5.0), said("a2", 1.0)]
    theirs = [said("b1", 3.0)]
    assert contents(interleave_by_time(ours, theirs)) == ["b1", "a1", "a2"]


def test_identical_branches_merge_to_themselves() -> None:
    rows = [user("x"), said("y", 1.0)]
    assert interleave_by_time(rows, rows) == tuple(rows)


def test_a_row_time_is_part_of_its_content() -> None:
    plain = said("same", None)
    assert plain.digest() != plain.stamped(1.0).digest()
    assert ChunkRow.model_validate_json(plain.stamped(1.0).model_dump_json()).at == 1.0


def test_unknown_policy_names_the_choices() -> None:
    a, b = Session.from_user_message("a"), Session.from_user_message("b")
    with pytest.raises(ValueError, match="'concat', 'interleave_by_time', 'summarize'"):
        a.merge(b, policy="zip")  # type: ignore[arg-type]
