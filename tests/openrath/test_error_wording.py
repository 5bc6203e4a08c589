"""The error words OpenRath's tests match, with Rath's advice after them."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from rath.errors import PersistenceError
from rath.session import Session
from rath.session.persistence import (
    CURRENT_SCHEMA_VERSION,
    SessionWriter,
    load_session,
    register_header_migration,
)


def test_a_missing_session_is_not_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATH_HOME", str(tmp_path))
    with pytest.raises(PersistenceError, match="not found: no file in"):
        load_session(uuid.uuid4())


def test_a_newer_schema_names_the_current_version(tmp_path: Path) -> None:
    session, target = Session.from_user_message("x"), tmp_path / "s.jsonl"
    SessionWriter(session, path=target).close()
    lines = target.read_text().splitlines()
    header = json.loads(lines[0]) | {"schema_version": CURRENT_SCHEMA_VERSION + 1}
    target.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    with pytest.raises(PersistenceError, match=r"newer than CURRENT_SCHEMA_VERSION \(1\)"):
        load_session(session.id, path=target)


def test_a_migration_from_the_current_version_is_refused() -> None:
    with pytest.raises(ValueError, match="refusing to register a migration from version 1"):
        register_header_migration(CURRENT_SCHEMA_VERSION, lambda record: record)


def test_an_unknown_kind_lists_the_kinds() -> None:
    with pytest.raises(
        ValueError, match=r"unknown kind 'agent' \(use 'user', 'system' or 'empty'\)"
    ):
        Session.create("agent", "x")


def test_merging_across_backends_names_both(tmp_path: Path) -> None:
    a = Session.from_user_message("a").to("local", spec=tmp_path / "a")
    b = Session.from_user_message("b").to("bwrap", spec=tmp_path / "b")
    with pytest.raises(ValueError, match="different backends: 'local' vs 'bwrap'"):
        a.merge(b)
