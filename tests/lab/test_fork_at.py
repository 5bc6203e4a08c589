"""Branching at a round: ``Session.fork(at=k)``, ``load_session(...).fork(at=k)`` and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from uuid import UUID

import pytest
from lab.lab_cli import finished_squad, rath

from rath.session import ChunkKind, LineageKind
from rath.session.persistence import load_session
from rath.settings import Settings
from rath.store import current_catalog, current_store


def object_keys() -> set[str]:
    return {info.key for info in current_store().objects.list() if "/" in info.key}


def test_fork_at_a_round_shares_the_rows(rath_env: Settings, tmp_path: Path) -> None:
    out = finished_squad(tmp_path / "ws")
    rows = out.chunk_table.rows
    answers = [i for i, row in enumerate(rows) if row.kind is ChunkKind.ASSISTANT]
    rounds = len(answers)
    assert rounds >= 5

    plan = out.fork(at=1)  # the task and the planner's answer
    assert [r.kind for r in plan.chunk_table.rows] == [ChunkKind.USER, ChunkKind.ASSISTANT]
    assert plan.chunk_table.rows == rows[:2]
    assert plan.parent_session_ids == (out.id,)
    assert plan.lineage_kind is LineageKind.OP_FORK
    assert dict(plan.lineage_extras) == {"fork.at_round": 1, "fork.rounds": rounds}
    assert all(isinstance(row, str) for row in plan.table.rows)  # by digest, no copy

    before = object_keys()
    current_store().seal(plan.table)
    added = object_keys() - before
    assert len(added) == 1  # one table node, no row
    (node,) = (json.loads(current_store().objects.get(key)) for key in added)
    assert set(node) == {"parts", "rows"} and len(node["rows"]) == 2

    last = out.fork(at=-1)
    assert dict(last.lineage_extras)["fork.at_round"] == rounds - 1
    assert last.chunk_table.rows == rows[: answers[-1]]
    assert out.fork(at=0).chunk_table.rows == rows[:1]
    assert out.fork(at=rounds).chunk_table.rows == rows
    with pytest.raises(ValueError, match=f"this transcript has {rounds} rounds"):
        out.fork(at=rounds + 1)

    loaded = load_session(out.id).fork(at=1)
    assert loaded.parent_session_ids == (out.id,)
    assert loaded.chunk_table.rows == rows[:2]
    assert all(isinstance(row, str) for row in loaded.table.rows)

    before = object_keys()
    forked = rath("sessions", "fork", out.id.hex[:8], "--at", "1")
    assert forked.returncode == 0, forked.stderr
    record = current_catalog().get(UUID(forked.stdout.strip()))
    assert record is not None and record.parents == (out.id,)
    assert record.extras == {"fork.at_round": 1, "fork.rounds": rounds}
    assert len(object_keys() - before) <= 1  # at most its root node (none if already there)
    assert load_session(record.id).chunk_table.rows == rows[:2]

    bad = rath("sessions", "fork", str(out.id), "--at", str(rounds + 3))
    assert bad.returncode == 1
    assert f"this transcript has {rounds} rounds" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
