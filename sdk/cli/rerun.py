"""``rath run --from ID[@K]``: continue a stored session, or its branch. See docs/modules.md."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from rath.backend.spec import BackendSandboxSpec
from rath.cli.lab import fork_record
from rath.errors import ConfigError
from rath.session.chunk import user_text_chunk
from rath.session.graph.kind import LineageKind
from rath.session.session import Session
from rath.session.table_ref import TableRef
from rath.store import SessionRecord, current_catalog, current_store
from rath.store.lineage import models_of
from rath.store.lookup import find_record
from rath.utils.text import preview

RERUN = "rerun."
"""Prefix of the lineage extras saying what a rerun changed."""


def parse_from(value: str) -> tuple[SessionRecord, int | None]:
    """``ID`` or ``ID@K`` as the source's record and the round (None: all of it).

    Raises:
        ConfigError: ``K`` is not a whole number, or the id names no single session.
    """
    key, at, round_text = value.partition("@")
    if at and not round_text.lstrip("-").isdigit():
        raise ConfigError(f"rath run --from {value!r}: the round after '@' must be a number")
    return find_record(current_catalog().records(), key), int(round_text) if at else None


def rerun_changes(
    source: SessionRecord,
    *,
    model: str,
    base_url: str | None,
    agent: str,
    prompt: str | None,
    tools: list[str],
) -> dict[str, Any]:
    """What a rerun changes against what ``source``'s records say (``rerun.*`` extras)."""
    before = models_of(current_catalog(), source)
    changes: dict[str, Any] = {f"{RERUN}from": str(source.id)}
    if before != [model]:
        changes[f"{RERUN}model"] = f"{', '.join(before) or 'unknown'} -> {model}"
    if base_url is not None:
        changes[f"{RERUN}provider"] = base_url
    if agent != source.agent:
        changes[f"{RERUN}agent"] = f"{source.agent or '-'} -> {agent}"
    if prompt is not None:
        changes[f"{RERUN}prompt"] = preview(prompt, 200)
    if tools:
        changes[f"{RERUN}tools"] = ", ".join(tools)
    return changes


def branch_input(
    source: SessionRecord, at: int | None, message: str | None, changes: dict[str, Any]
) -> Session:
    """The catalogued branch a rerun starts from (``message`` appended as a user row)."""
    fork = fork_record(source, at, operator="rath run --from", extras=changes)
    table = TableRef.sealed(fork.root) if fork.root else TableRef()
    if message is not None:
        table = table.append(user_text_chunk(message))
        fork = fork.model_copy(update={"root": current_store().seal(table)})
        current_catalog().put(fork)
    session = Session(
        id=fork.id,
        table=table,
        parent_session_ids=fork.parents,
        lineage_kind=LineageKind.OP_FORK,
        lineage_operator=fork.operator,
        lineage_extras=tuple(fork.extras.items()),
    )
    spec = (source.placement or {}).get("spec")
    if spec:
        session.to(spec["backend"], spec=BackendSandboxSpec(**spec))
    return session


def note_rerun(output_id: UUID, changes: dict[str, Any]) -> None:
    """Add the ``rerun.*`` facts to the finished run's own record."""
    catalog = current_catalog()
    record = catalog.get(output_id)
    if record is not None:
        catalog.put(record.model_copy(update={"extras": record.extras | changes}))
