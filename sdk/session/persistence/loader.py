"""Reading OpenRath session files: torn last lines skipped, every other fault named by line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rath.errors import PersistenceError
from rath.session.chunk import ChunkKind, ChunkRow, ChunkTable
from rath.session.persistence._records import (
    PersistedSession,
    PersistedSessionHeader,
    PersistedSessionMeta,
    migrate,
    usage_of,
)

_KINDS = {kind.value: kind for kind in ChunkKind}


def read_session_file(path: Path) -> PersistedSession:
    """The session in ``path`` (a closed or partial file).

    Raises:
        PersistenceError: The file is missing or malformed (the message names file and line).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PersistenceError(f"no session file at {path}") from None
    header: PersistedSessionHeader | None = None
    version = 1
    rows: list[ChunkRow] = []
    trailer: dict[str, Any] | None = None
    lines = text.split("\n")
    for number, line in enumerate(lines[:-1], start=1):  # the last piece has no newline: torn
        if not line.strip():
            continue
        where = f"{path}:{number}"
        record = _record(line, where)
        kind = record.get("record_type")
        if kind == "header":
            if header is not None:
                raise PersistenceError(f"{where}: duplicate header record")
            version = int(record.get("schema_version", 1))
            header = PersistedSessionHeader.from_json(
                migrate(record, version, header=True, where=where), where
            )
        elif header is None:
            raise PersistenceError(f"{where}: {_not_a_header(record)}")
        elif kind == "chunk":
            rows.append(_row(migrate(record, version, header=False, where=where), where))
        elif kind == "trailer":
            trailer = record
        else:
            raise PersistenceError(
                f"{where}: unknown record_type {kind!r} (expected 'chunk' or 'trailer')"
            )
    if header is None:
        raise PersistenceError(f"{path}: no header record")
    usage = (
        usage_of(trailer.get("cumulative_usage"), f"{path}: trailer")
        if trailer is not None
        else None
    )
    return PersistedSession(
        header=header,
        chunk_table=ChunkTable(rows=tuple(rows)),
        cumulative_usage=usage,
        closed=trailer is not None,
        path=path,
        trailer_raw=trailer,
    )


def meta_of(path: Path) -> PersistedSessionMeta:
    """The listing entry of one file (read whole: files hold one session)."""
    session = read_session_file(path)
    header = session.header
    return PersistedSessionMeta(
        id=header.id,
        path=path,
        created_at=header.created_at,
        lineage_operator=header.lineage_operator,
        lineage_kind=header.lineage_kind,
        chunk_count=len(session.chunk_table.rows),
        closed=session.closed,
    )


def _record(line: str, where: str) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except ValueError as exc:
        raise PersistenceError(f"{where}: invalid JSON ({exc})") from None
    if not isinstance(record, dict):
        raise PersistenceError(f"{where}: a record must be a JSON object")
    return record


def _not_a_header(record: dict[str, Any]) -> str:
    """Why the first record of a file is not what a session file starts with."""
    expected = (
        'expected the header record ({"record_type": "header", "id": ..., ...}) that a '
        "session file starts with (`rath sessions export ID --format jsonl -o FILE` writes one)"
    )
    kind = record.get("record_type")
    if kind is None and "lineage_kind" in record and "parent_session_ids" in record:
        return f"a session graph row (lineage JSONL), not a session file; {expected}"
    if kind is None:
        return f"a record without record_type; {expected}"
    return f"a {kind} record before the header; {expected}"


def _row(record: dict[str, Any], where: str) -> ChunkRow:
    kind = _KINDS.get(record.get("kind", ""))
    if kind is None:
        raise PersistenceError(f"{where}: invalid chunk kind {record.get('kind')!r}")
    payload = record.get("payload")
    if not isinstance(payload, dict):
        raise PersistenceError(f"{where}: a chunk payload must be a JSON object")
    at = record.get("at")
    if at is not None and (isinstance(at, bool) or not isinstance(at, int | float)):
        raise PersistenceError(f"{where}: a chunk's 'at' must be seconds since the epoch")
    return ChunkRow(kind=kind, payload=payload, at=at)
