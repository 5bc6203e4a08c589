"""OpenRath's session-file records (schema 1) and their migration hooks. See docs/modules.md."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from uuid import UUID

from rath.backend.persistence.spec_json import spec_from_jsonable, spec_to_jsonable
from rath.backend.spec import BackendSandboxSpec
from rath.errors import PersistenceError
from rath.llm.chat_response import RathLLMTokenUsage
from rath.session.chunk import ChunkKind, ChunkTable
from rath.session.graph.kind import LineageKind
from rath.session.session import Session
from rath.session.table_ref import TableRef
from rath.utils.records import jsonable

CURRENT_SCHEMA_VERSION = 1
Migration = Callable[[dict[str, Any]], dict[str, Any]]
_HEADER_MIGRATIONS: dict[int, Migration] = {}
_CHUNK_MIGRATIONS: dict[int, Migration] = {}


def register_header_migration(from_version: int, fn: Migration) -> None:
    """Register how a header of ``from_version`` becomes one of the next version."""
    _register(_HEADER_MIGRATIONS, from_version, fn)


def register_chunk_migration(from_version: int, fn: Migration) -> None:
    """Register how a chunk record of ``from_version`` becomes one of the next version."""
    _register(_CHUNK_MIGRATIONS, from_version, fn)


def _register(table: dict[int, Migration], from_version: int, fn: Migration) -> None:
    if from_version >= CURRENT_SCHEMA_VERSION:
        raise ValueError(
            f"refusing to register a migration from version {from_version}: migrations lead "
            f"up to CURRENT_SCHEMA_VERSION ({CURRENT_SCHEMA_VERSION}), so start below it"
        )
    table[from_version] = fn


def migrate(record: dict[str, Any], version: int, *, header: bool, where: str) -> dict[str, Any]:
    """``record`` (of schema ``version``) brought to the current version."""
    if version > CURRENT_SCHEMA_VERSION:
        raise PersistenceError(
            f"{where}: schema_version {version} is newer than CURRENT_SCHEMA_VERSION "
            f"({CURRENT_SCHEMA_VERSION}), which this Rath reads; refusing to downgrade"
        )
    table = _HEADER_MIGRATIONS if header else _CHUNK_MIGRATIONS
    while version < CURRENT_SCHEMA_VERSION:
        step = table.get(version)
        if step is None:
            raise PersistenceError(f"{where}: no migration from schema_version {version}")
        record, version = step(record), version + 1
    return record


@dataclass(frozen=True, kw_only=True, slots=True)
class PersistedSessionHeader:
    """The header record: the session's identity, lineage and sandbox at loop start."""

    schema_version: int
    id: UUID
    created_at: datetime
    parent_session_ids: tuple[UUID, ...] = ()
    lineage_operator: str = "implicit"
    lineage_kind: LineageKind = LineageKind.UNKNOWN
    lineage_extras: tuple[tuple[str, Any], ...] = ()
    sandbox_backend: str | None = None
    sandbox_spec: BackendSandboxSpec | None = None
    sandbox_handle_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The header line's object."""
        return {
            "record_type": "header",
            "schema_version": self.schema_version,
            "id": str(self.id),
            "created_at": self.created_at.isoformat(),
            "parent_session_ids": [str(p) for p in self.parent_session_ids],
            "lineage_operator": self.lineage_operator,
            "lineage_kind": self.lineage_kind.value,
            "lineage_extras": [[k, jsonable(v)] for k, v in self.lineage_extras],
            "sandbox_backend": self.sandbox_backend,
            "sandbox_spec": spec_to_jsonable(self.sandbox_spec),
            "sandbox_handle_id": self.sandbox_handle_id,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], where: str) -> PersistedSessionHeader:
        """Parse a header object (already migrated)."""
        try:
            kind = data.get("lineage_kind", "unknown")
            return cls(
                schema_version=CURRENT_SCHEMA_VERSION,
                id=UUID(data["id"]),
                created_at=datetime.fromisoformat(data["created_at"]),
                parent_session_ids=tuple(_uuids(data.get("parent_session_ids") or ())),
                lineage_operator=data.get("lineage_operator", "implicit"),
                lineage_kind=LineageKind(kind) if kind in _KINDS else LineageKind.UNKNOWN,
                lineage_extras=tuple((k, v) for k, v in data.get("lineage_extras") or ()),
                sandbox_backend=data.get("sandbox_backend"),
                sandbox_spec=spec_from_jsonable(data.get("sandbox_spec")),
                sandbox_handle_id=data.get("sandbox_handle_id"),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise PersistenceError(f"{where}: malformed header ({exc})") from None


@dataclass(frozen=True, kw_only=True, slots=True)
class PersistedSessionMeta:
    """What a listing says about one persisted session."""

    id: UUID
    path: Path | None
    created_at: datetime
    lineage_operator: str
    lineage_kind: LineageKind
    chunk_count: int
    closed: bool


@dataclass(frozen=True, kw_only=True, slots=True)
class PersistedSession:
    """A loaded session: header, rows, usage, and whether it was closed cleanly."""

    header: PersistedSessionHeader
    chunk_table: ChunkTable
    cumulative_usage: RathLLMTokenUsage | None
    closed: bool
    path: Path | None
    trailer_raw: dict[str, Any] | None = field(default=None)

    def fork(self, at: int | None = None) -> Session:
        """A new session branching this one (parent: this one), as ``Session.fork(at=...)``."""
        return self.as_session().fork(at=at)

    def as_session(self) -> Session:
        """This stored session as a :class:`Session` (same id, lineage, rows and sandbox)."""
        header, rows = self.header, self.chunk_table.rows
        stored = self.path is None and self.closed and bool(rows)
        session = Session(
            id=header.id,
            table=TableRef(rows=tuple(row.digest() for row in rows)) if stored else None,
            chunk_table=None if stored else self.chunk_table,
            parent_session_ids=header.parent_session_ids,
            lineage_kind=header.lineage_kind,
            lineage_operator=header.lineage_operator,
            cumulative_usage=self.cumulative_usage,
        )
        session._rows = rows
        if header.sandbox_backend is not None:
            session.to(header.sandbox_backend, spec=header.sandbox_spec)
        return session

    def to_resumable_pair(self, *, agent_prompt: str | None = None) -> tuple[Session, Session]:
        """``(user, agent)`` sessions that continue this conversation with a new agent call."""
        user = Session.from_rows(self.chunk_table.rows)
        header = self.header
        if header.sandbox_backend is not None:
            user.to(header.sandbox_backend, spec=header.sandbox_spec)
        if agent_prompt is not None:
            return user, Session.from_agent_prompt(agent_prompt)
        system = next((r for r in self.chunk_table.rows if r.kind is ChunkKind.SYSTEM), None)
        return user, Session.from_rows([system]) if system is not None else Session()


_KINDS = {kind.value for kind in LineageKind}


def usage_of(data: Any, where: str) -> RathLLMTokenUsage | None:
    """A trailer's (or record's) usage object as OpenRath's type; ``None`` for ``null``.

    Raises:
        PersistenceError: ``data`` is not an object of integer counts.
    """
    if data is None:
        return None
    try:
        if not isinstance(data, dict):
            raise TypeError(f"expected an object, got {type(data).__name__}")
        prompt = int(data.get("prompt_tokens") or 0)
        completion = int(data.get("completion_tokens") or 0)
        total = int(data.get("total_tokens") or 0) or prompt + completion
    except (TypeError, ValueError) as exc:
        raise PersistenceError(f"{where}: malformed cumulative_usage ({exc})") from None
    return RathLLMTokenUsage(prompt, completion, total)


def _uuids(values: Any) -> list[UUID]:
    found = []
    for value in values:
        try:
            found.append(UUID(str(value)))
        except ValueError:
            continue  # unparseable parents are dropped, as OpenRath does
    return found
