"""Branching a transcript at a past round: where round ``k`` ends. See docs/modules.md."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from rath.session._graph_mode import stamped
from rath.session.chunk import ChunkKind, ChunkRow
from rath.session.graph.kind import LineageKind
from rath.session.table_ref import TableRef

FORK_ROUND = "fork.at_round"
"""Lineage extra of a session branched at a round: the round (0..n, counted from the start)."""
FORK_ROUNDS = "fork.rounds"
"""Lineage extra: how many rounds the source had."""


def count_rounds(rows: tuple[ChunkRow, ...]) -> int:
    """The number of rounds (model answers) in ``rows``."""
    return sum(1 for row in rows if row.kind is ChunkKind.ASSISTANT)


def round_cut(rows: tuple[ChunkRow, ...], at: int) -> tuple[int, int]:
    """Where round ``at`` ends: ``(number of rows kept, the round counted from the start)``.

    Raises:
        ValueError: ``at`` is out of range (the message names how many rounds there are).
    """
    rounds = count_rounds(rows)
    if isinstance(at, bool) or not isinstance(at, int):
        raise TypeError(f"fork(at=...) takes a round number (an int), not {at!r}")
    k = at + rounds if at < 0 else at
    if not 0 <= k <= rounds:
        raise ValueError(
            f"round {at} is out of range: this transcript has {rounds} round"
            f"{'' if rounds == 1 else 's'} (0..{rounds}, or -{rounds}..-1 from the end)"
        )
    if k == 0:  # the rows before the first answer (all of them when nothing answered)
        first = next((i for i, r in enumerate(rows) if r.kind is ChunkKind.ASSISTANT), None)
        return (len(rows) if first is None else first), 0
    answers = [i for i, row in enumerate(rows) if row.kind is ChunkKind.ASSISTANT]
    cut = answers[k] if k < rounds else len(rows)
    while rows[cut - 1].kind not in (ChunkKind.ASSISTANT, ChunkKind.TOOL_RESULT):
        cut -= 1  # a user row before the next answer belongs to no round
    return cut, k


def is_stored(table: TableRef) -> bool:
    """True when every row of ``table`` is a stored one (no inline row anywhere in it)."""
    if any(isinstance(row, ChunkRow) for row in table.rows):
        return False
    return all(isinstance(part, str) or is_stored(part) for part in table.parts)


def prefix_table(table: TableRef, rows: tuple[ChunkRow, ...], cut: int) -> TableRef:
    """A ref to ``rows[:cut]`` of ``table``: by digest when its rows are all stored."""
    if cut == len(rows):
        return table
    if not table.is_empty() and is_stored(table):
        return TableRef(rows=tuple(row.digest() for row in rows[:cut]))
    return TableRef.inline(*rows[:cut])


def branch_fields(
    source_id: UUID, table: TableRef, rows: tuple[ChunkRow, ...], at: int
) -> tuple[dict[str, Any], tuple[ChunkRow, ...]]:
    """The ``Session`` fields of a branch of ``source_id`` at round ``at``, and its rows.

    Raises:
        ValueError: ``at`` is out of range.
    """
    cut, k = round_cut(rows, at)
    fields = {"table": prefix_table(table, rows, cut)} | stamped(
        parent_session_ids=(source_id,),
        lineage_kind=LineageKind.OP_FORK,
        lineage_operator="Session.fork",
        lineage_extras=((FORK_ROUND, k), (FORK_ROUNDS, count_rounds(rows))),
    )
    return fields, rows[:cut]
