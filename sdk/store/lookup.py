"""Finding a catalogued session by full id, prefix or workflow id. See docs/modules.md."""

from __future__ import annotations

import re
from collections.abc import Iterable
from uuid import UUID

from rath.errors import ConfigError, RunNotFoundError
from rath.store.catalog import SessionRecord

MIN_PREFIX = 4
"""The fewest hex characters a prefix may have (shorter ones match too much to be meant)."""
_SHOWN = 5
_HEX = re.compile(r"^[0-9a-f]+$")


def find_record(records: Iterable[SessionRecord], key: str) -> SessionRecord:
    """The one record ``key`` names: a full session id, a unique id prefix, or a workflow id.

    Raises:
        ConfigError: ``key`` is empty or too short, or a prefix several sessions share.
        RunNotFoundError: No catalogued session matches it.
    """
    text = key.strip()
    every = list(records)
    by_workflow = [r for r in every if r.workflow_id is not None and r.workflow_id == text]
    if by_workflow:
        return _one_of_run(by_workflow, text)
    hexed = text.lower().replace("-", "")
    if not _HEX.match(hexed) or len(hexed) < MIN_PREFIX:
        raise ConfigError(
            f"{key!r} is not a session id, an id prefix (at least {MIN_PREFIX} hex characters) "
            "or a run's workflow id (`rath sessions ls` lists them)"
        )
    if len(hexed) == 32:
        wanted = UUID(hexed)
        exact = [r for r in every if r.id == wanted]
        if exact:
            return exact[0]
    matches = [r for r in every if r.id.hex.startswith(hexed)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise RunNotFoundError(f"no session {key} in the catalog (`rath sessions ls` lists them)")
    raise ConfigError(ambiguous(key, matches))


def ambiguous(key: str, matches: list[SessionRecord]) -> str:
    """The one line saying which sessions a prefix matches."""
    shown = ", ".join(f"{r.id} ({r.agent or r.kind})" for r in matches[:_SHOWN])
    more = f" and {len(matches) - _SHOWN} more" if len(matches) > _SHOWN else ""
    return (
        f"session prefix {key!r} is ambiguous: {len(matches)} sessions start with it: "
        f"{shown}{more}; type more characters"
    )


def _one_of_run(records: list[SessionRecord], workflow_id: str) -> SessionRecord:
    """The run's own output when a workflow id names several records (its suffix is its id)."""
    if len(records) == 1:
        return records[0]
    suffix = workflow_id.rsplit("-", 1)[-1].lower()
    own = [r for r in records if r.id.hex.startswith(suffix)]
    return own[0] if own else records[-1]
