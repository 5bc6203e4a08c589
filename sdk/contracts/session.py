"""The session activities' contracts: read rows, merge by time, store tool schemas, catalog."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from rath.contracts._contract import ActivityContract
from rath.llm.chat_response import RathLLMTokenUsage
from rath.session.chunk import ChunkRow
from rath.session.graph import SessionGraph
from rath.session.placement import Placement
from rath.session.table_ref import TableRef
from rath.utils.frozen import Frozen


class ReadArgs(Frozen):
    """Input of ``rath.session.read``."""

    table: TableRef


class ReadResult(Frozen):
    """The rows of a table."""

    rows: tuple[ChunkRow, ...]


class InterleaveArgs(Frozen):
    """Input of ``rath.session.interleave``: the two branches, by reference."""

    ours: TableRef
    theirs: TableRef


class InterleaveResult(Frozen):
    """The merged table's digest (a sealed node in the store) and its row count."""

    table: str
    rows: int


class PutToolsArgs(Frozen):
    """Input of ``rath.session.put_tools``: tool schemas (OpenAI wire dicts)."""

    schemas: list[dict[str, Any]]


class PutToolsResult(Frozen):
    """Where the schemas are stored (what each LLM round carries instead of them)."""

    digest: str


class CatalogArgs(Frozen):
    """Input of ``rath.session.catalog``: a session's record, its transcript by reference."""

    session_id: UUID
    parents: tuple[UUID, ...] = ()
    kind: str
    operator: str
    agent: str | None = None
    created: datetime
    closed: datetime | None = None
    status: str = "running"
    usage: RathLLMTokenUsage | None = None
    table: TableRef | None = None
    placement: Placement | None = None
    workflow_id: str
    error: str | None = None
    model: str | None = None
    extras: dict[str, Any] = {}
    graph: SessionGraph | None = None
    """A durable forward's session graph, kept beside its output's record (forks and merges
    inside ``forward`` have no run, hence no record, of their own)."""


class CatalogResult(Frozen):
    """The sealed root of the recorded transcript, if it had one."""

    root: str | None = None


READ_ROWS = ActivityContract("rath.session.read", ReadArgs, ReadResult)
"""Bring a stored table's rows into workflow code (they enter history once)."""
INTERLEAVE = ActivityContract("rath.session.interleave", InterleaveArgs, InterleaveResult)
"""Merge two tables by time in the store; only the result's digest comes back."""
PUT_TOOLS = ActivityContract("rath.session.put_tools", PutToolsArgs, PutToolsResult)
"""Store a run's tool schemas once; LLM rounds refer to them by digest."""

RECORD_SESSION = ActivityContract("rath.session.catalog", CatalogArgs, CatalogResult)
"""Write (or update) a session's catalog record beside its chunks."""
