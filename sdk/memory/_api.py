"""Memory outside workflows: remember, recall and commit in this process, against the store.

``memory`` is what ``Agent(memory=...)`` takes; a store object is used and left open, others
are opened for the call (docs/memory.md, "Outside workflows"). Workflows use the activities.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from rath.errors import ConfigError
from rath.llm.provider import Provider
from rath.memory._chat import provider_chat
from rath.memory._commit import commit_rows
from rath.memory.abc import DEFAULT_CATEGORY, DEFAULT_SCOPE, DEFAULT_TOP_K, MemoryStore
from rath.memory.describe import memory_spec, open_memory_store
from rath.memory.op_types import RecallMode
from rath.memory.results import MemoryHits, MemoryRecord
from rath.memory.spec import CommitResult, MemorySpec
from rath.memory.uri import parse_memory_prefix
from rath.session.chunk import ChunkRow

Memory = MemorySpec | MemoryStore | str
"""What the functions here accept as the store: ``"local"``, ``"local:<name>"``, a spec, a store."""


def remember(
    memory: Memory,
    content: str,
    *,
    scope: str | None = None,
    category: str | None = None,
    key: str | None = None,
    session_id: str | None = None,
) -> MemoryRecord:
    """Store ``content``; its record (the existing one if stored). Defaults: the spec's."""
    with _opened(memory) as (store, spec):
        return store.remember(
            content,
            scope or (spec.scope if spec else DEFAULT_SCOPE),
            category or (spec.category if spec else DEFAULT_CATEGORY),
            key=key,
            session_id=session_id,
        )


def recall(
    memory: Memory,
    query: str,
    *,
    top_k: int = DEFAULT_TOP_K,
    target: str | None = None,
    mode: RecallMode = "hybrid",
) -> MemoryHits:
    """The memories most relevant to ``query`` (under ``target``), best first, scores > 0."""
    scope, category = parse_memory_prefix(target) if target is not None else (None, None)
    with _opened(memory) as (store, _):
        return store.recall(query, top_k=top_k, scope=scope, category=category, mode=mode)


def commit(
    memory: Memory,
    rows: Sequence[ChunkRow],
    provider: Provider,
    *,
    session_id: str,
    scope: str | None = None,
) -> CommitResult:
    """Extract durable facts from ``rows`` with one call to ``provider`` here, and store them."""
    with provider_chat(provider) as chat, _opened(memory) as (store, spec):
        where = scope or (spec.scope if spec else DEFAULT_SCOPE)
        return commit_rows(store, rows, chat, session_id=session_id, scope=where)


@contextmanager
def _opened(memory: Memory) -> Iterator[tuple[MemoryStore, MemorySpec | None]]:
    if isinstance(memory, MemoryStore):
        yield memory, None
        return
    spec = memory_spec(memory)
    if spec is None:
        raise ConfigError("no memory store given: pass 'local', a MemorySpec or a store")
    with open_memory_store(spec) as store:
        yield store, spec
