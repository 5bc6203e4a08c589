"""Memory outside workflows: remember, recall and commit in this process, against the store.

Each function takes what ``Agent(memory=...)`` takes: ``"local"`` (or ``"local:<name>"``), a
:class:`MemorySpec`, or a store object. A store object is used as it is and left open; for
the others a store is opened for the call and closed after it.

Inside a workflow, use the ``rath.memory.*`` activities instead (retried, idempotent).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from rath.errors import ConfigError
from rath.llm.provider import Provider
from rath.memory._chat import provider_chat
from rath.memory._commit import CommitResult, commit_rows
from rath.memory.abc import (
    DEFAULT_CATEGORY,
    DEFAULT_SCOPE,
    DEFAULT_TOP_K,
    MemoryStore,
)
from rath.memory.describe import memory_spec, open_memory_store
from rath.memory.op_types import RecallMode
from rath.memory.results import MemoryHits, MemoryRecord
from rath.memory.spec import MemorySpec
from rath.memory.uri import parse_memory_prefix
from rath.session.chunk import ChunkRow

Memory = MemorySpec | MemoryStore | str
"""What the functions here accept as the store (see the module docstring)."""


def remember(
    memory: Memory,
    content: str,
    *,
    scope: str | None = None,
    category: str | None = None,
    key: str | None = None,
    session_id: str | None = None,
) -> MemoryRecord:
    """Store ``content`` and return its record (the existing one if it is already stored).

    Args:
        memory: The store.
        content: The text to remember.
        scope: Default: the spec's scope (``user``).
        category: Default: the spec's category (``preferences``).
        key: An idempotency key: the same key returns the first record written with it.
        session_id: The session the knowledge came from.

    Raises:
        ConfigError: ``memory`` is not a store, spec or ``"local"``.
        InvalidMemoryError: Empty content, or an invalid scope or category.
        MemoryStoreError: The store failed.
    """
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
    """The memories most relevant to ``query``, best first, every score positive.

    Args:
        memory: The store.
        query: Free text.
        top_k: The most hits to return.
        target: Search only a scope (``"user"``) or a URI prefix
            (``"memory://user/memories/preferences/"``); ``None`` searches everything.
        mode: ``hybrid``, ``lexical`` or ``embedding``.

    Raises:
        ConfigError: ``memory`` is not a store, spec or ``"local"``.
        InvalidMemoryError: ``top_k`` < 1, a bad target or mode.
        MemoryStoreError: The store failed.
    """
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
    """Extract durable facts from a transcript with one call to ``provider``, and store them.

    Injected memory rows and tool results are not shown to the model; facts a stored memory
    already says are skipped; committing the same session again adds nothing new for the
    facts it already gave. The call is made here, in this process (no worker), with
    :mod:`rath.llm`'s chat client for the provider's kind, trying each of its keys in turn.

    Args:
        memory: The store.
        rows: The transcript, e.g. ``session.chunk_table.rows``.
        provider: The model that extracts the facts.
        session_id: The session the transcript is (kept on each record, and part of the
            idempotency key of each fact).
        scope: The scope facts are stored in (default: the spec's, ``user``).

    Raises:
        ConfigError: ``memory`` or ``provider`` is misconfigured.
        LLMError: The model endpoint failed.
        ExtractionError: Its reply holds no JSON list of facts.
        MemoryStoreError: The store failed.
    """
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
