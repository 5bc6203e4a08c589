"""The session activities' contracts: read a table's rows, merge two by time, store tool schemas."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from rath.contracts._contract import ActivityContract
from rath.session._chunks import ChunkRow
from rath.session._table_ref import TableRef


class ReadArgs(BaseModel):
    """Input of ``rath.session.read``."""

    model_config = ConfigDict(frozen=True)

    table: TableRef


class ReadResult(BaseModel):
    """The rows of a table."""

    model_config = ConfigDict(frozen=True)

    rows: tuple[ChunkRow, ...]


class InterleaveArgs(BaseModel):
    """Input of ``rath.session.interleave``: the two branches, by reference."""

    model_config = ConfigDict(frozen=True)

    ours: TableRef
    theirs: TableRef


class InterleaveResult(BaseModel):
    """The merged table's digest (a sealed node in the store) and its row count."""

    model_config = ConfigDict(frozen=True)

    table: str
    rows: int


class PutToolsArgs(BaseModel):
    """Input of ``rath.session.put_tools``: tool schemas (OpenAI wire dicts)."""

    model_config = ConfigDict(frozen=True)

    schemas: list[dict[str, Any]]


class PutToolsResult(BaseModel):
    """Where the schemas are stored (what each LLM round carries instead of them)."""

    model_config = ConfigDict(frozen=True)

    digest: str


READ_ROWS = ActivityContract("rath.session.read", ReadArgs, ReadResult)
"""Bring a stored table's rows into workflow code (they enter history once)."""
INTERLEAVE = ActivityContract("rath.session.interleave", InterleaveArgs, InterleaveResult)
"""Merge two tables by time in the store; only the result's digest comes back."""
PUT_TOOLS = ActivityContract("rath.session.put_tools", PutToolsArgs, PutToolsResult)
"""Store a run's tool schemas once; LLM rounds refer to them by digest."""
