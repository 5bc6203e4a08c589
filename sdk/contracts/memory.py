"""The memory activities' contracts (remember, recall, inject, commit) and an agent's memory.

Workflows carry a :class:`~rath.memory.MemorySpec`; the worker opens the store it describes.
Transcripts travel by reference; memories enter history only as short previews and URIs.
"""

from __future__ import annotations

from rath.contracts._contract import ActivityContract
from rath.llm.provider import ProviderSpec
from rath.memory.op_types import RecallMode
from rath.memory.results import MemoryHit, MemoryRecord
from rath.memory.spec import CommitResult, MemorySpec
from rath.session.table_ref import TableRef
from rath.utils.frozen import Frozen


class AgentMemory(Frozen):
    """How an agent run uses memory (``Agent(memory=...)``), as workflow input.

    ``top_k`` memories from ``target`` are injected before the first round; with
    ``commit_on_forward`` the transcript's durable facts are stored after the run.
    """

    spec: MemorySpec
    top_k: int = 4
    target: str | None = None
    commit_on_forward: bool = False


class RememberArgs(Frozen):
    """Input of ``rath.memory.remember``."""

    content: str
    memory: MemorySpec = MemorySpec()
    scope: str | None = None
    """Default: the spec's scope."""
    category: str | None = None
    """Default: the spec's category."""
    key: str | None = None
    """An idempotency key; by default the activity's own (stable across its retries)."""
    session_id: str | None = None


class RememberResult(Frozen):
    """Output of ``rath.memory.remember``: the stored (or already present) record."""

    record: MemoryRecord


class RecallArgs(Frozen):
    """Input of ``rath.memory.recall``."""

    query: str
    memory: MemorySpec = MemorySpec()
    top_k: int = 4
    target: str | None = None
    """A scope (``user``) or URI prefix (``memory://user/memories/preferences/``); ``None``: all."""
    mode: RecallMode = "hybrid"


class RecallResult(Frozen):
    """Output of ``rath.memory.recall``: hits, best first, every score positive."""

    hits: tuple[MemoryHit, ...]


class InjectArgs(Frozen):
    """Input of ``rath.memory.inject``: the transcript by reference."""

    memory: MemorySpec
    transcript: TableRef
    top_k: int = 4
    target: str | None = None
    """A scope or URI prefix to recall from (see :class:`RecallArgs`); ``None``: all."""
    mode: RecallMode = "hybrid"


class InjectResult(Frozen):
    """Output of ``rath.memory.inject``: chunk-store digests of the rows to add, best first."""

    rows: tuple[str, ...] = ()
    uris: tuple[str, ...] = ()
    preview: str = "no memories"


class CommitArgs(Frozen):
    """Input of ``rath.memory.commit``: the transcript by reference, no secrets."""

    memory: MemorySpec
    transcript: TableRef
    provider: ProviderSpec
    agent_name: str
    session_id: str
    scope: str | None = None
    """The scope facts are stored in; default: the spec's."""


REMEMBER_MEMORY = ActivityContract("rath.memory.remember", RememberArgs, RememberResult)
"""Store one memory, idempotently."""
RECALL_MEMORIES = ActivityContract("rath.memory.recall", RecallArgs, RecallResult)
"""The memories most relevant to a query."""
INJECT_MEMORIES = ActivityContract("rath.memory.inject", InjectArgs, InjectResult)
"""Recall memories for a transcript's newest user turn, as marked SYSTEM rows (by digest)."""
COMMIT_MEMORIES = ActivityContract("rath.memory.commit", CommitArgs, CommitResult)
"""Extract durable facts from a transcript with one model call, and store them."""

__all__ = [
    "COMMIT_MEMORIES",
    "INJECT_MEMORIES",
    "RECALL_MEMORIES",
    "REMEMBER_MEMORY",
    "AgentMemory",
    "CommitArgs",
    "CommitResult",
    "InjectArgs",
    "InjectResult",
    "RecallArgs",
    "RecallResult",
    "RememberArgs",
    "RememberResult",
]
