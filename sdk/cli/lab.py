"""Sessions as a lab from the shell: branch a stored session at a round. See docs/modules.md."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from rath.errors import ConfigError
from rath.runtime.session_catalog import load_recorded
from rath.session.branch import FORK_ROUND, FORK_ROUNDS, count_rounds, prefix_table, round_cut
from rath.session.table_ref import TableRef
from rath.store import SessionRecord, current_catalog, current_store
from rath.utils.ids import new_id


def fork_record(
    record: SessionRecord,
    at: int | None,
    *,
    operator: str = "rath sessions fork",
    extras: dict[str, Any] | None = None,
) -> SessionRecord:
    """Catalog a branch of ``record``'s session: all of it, or up to round ``at``.

    Raises:
        ConfigError: ``at`` is out of range (the message names the number of rounds).
    """
    rows = load_recorded(record).chunk_table.rows  # the rows must be readable
    facts: dict[str, Any] = {}
    root = record.root
    if at is not None:
        try:
            cut, k = round_cut(rows, at)
        except ValueError as exc:
            raise ConfigError(f"cannot branch session {record.id} at round {at}: {exc}") from None
        source = TableRef.sealed(record.root) if record.root else TableRef.inline(*rows)
        root = current_store().seal(prefix_table(source, rows, cut))
        facts = {FORK_ROUND: k, FORK_ROUNDS: count_rounds(rows)}
    fork = SessionRecord(
        id=new_id(),
        parents=(record.id,),
        kind="op_fork",
        operator=operator,
        agent=record.agent,
        model=record.model,
        closed=datetime.now(UTC),
        status="completed",
        usage={},
        root=root,
        placement=record.placement,
        extras=facts | (extras or {}),
    )
    current_catalog().put(fork)
    return fork
