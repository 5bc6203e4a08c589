"""Commit: extract durable facts from a transcript with one model call, and store each once.

The steps, shared by the activity and :func:`rath.memory.commit`: docs/memory.md, "Commit helpers".
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from rath.llm.chat_response import RathLLMTokenUsage
from rath.memory._extraction import (
    ExtractedFact,
    build_extraction_messages,
    fact_key,
    parse_extracted_facts,
    transcript_lines,
)
from rath.memory.abc import MemoryStore
from rath.memory.results import MemoryRecord
from rath.memory.spec import CommitResult
from rath.session.chunk import ChunkRow
from rath.utils.text import preview

__all__ = [
    "KNOWN_MEMORIES",
    "PREVIEW_CHARS",
    "Chat",
    "ChatMessages",
    "CommitResult",
    "commit_key",
    "commit_messages",
    "commit_rows",
    "write_facts",
]

KNOWN_MEMORIES = 20
"""How many related stored memories the extraction prompt lists."""

PREVIEW_CHARS = 160
_QUERY_CHARS = 2_000
_SAME_FACT_CANDIDATES = 5

ChatMessages = list[dict[str, str]]
Chat = Callable[[ChatMessages], tuple[str, RathLLMTokenUsage | None]]
"""A model call: chat messages in, the reply text and its usage out."""


def commit_messages(
    store: MemoryStore, rows: Sequence[ChunkRow], *, scope: str | None = None
) -> ChatMessages:
    """The extraction prompt for ``rows``; ``[]`` when they hold nothing to extract from.

    Args:
        store: Where related memories are recalled from, to list them as known.
        rows: The transcript.
        scope: Recall known memories of this scope only (``None``: every scope).
    """
    lines = transcript_lines(rows)
    if not lines:
        return []
    text = " ".join(line.split(": ", 1)[-1] for line in lines)[-_QUERY_CHARS:]
    known = store.recall(text, top_k=KNOWN_MEMORIES, scope=scope)
    return build_extraction_messages(rows, existing=[hit.as_record() for hit in known])


def write_facts(
    store: MemoryStore,
    facts: Sequence[ExtractedFact],
    *,
    session_id: str,
    usage: RathLLMTokenUsage | None = None,
) -> CommitResult:
    """Store ``facts`` learned in session ``session_id``, each once (see the module docstring).

    Raises:
        MemoryStoreError: The store failed (facts written before the failure stay, and a
            retry with the same facts finds them).
    """
    uris: list[str] = []
    skipped = 0
    for fact in facts:
        same = _stored_as(store, fact)
        if same is not None and same.session_id != session_id:
            skipped += 1
            continue
        if same is None:
            same = store.remember(
                fact.content,
                fact.scope,
                fact.category,
                key=commit_key(session_id, fact),
                session_id=session_id,
            )
        if same.uri not in uris:
            uris.append(same.uri)
    summary = "; ".join(fact.content for fact in facts) or "no facts"
    return CommitResult(
        written=len(uris),
        skipped=skipped,
        uris=tuple(uris),
        usage=usage,
        preview=preview(f"{len(uris)} written, {skipped} skipped: {summary}", PREVIEW_CHARS),
    )


def commit_rows(
    store: MemoryStore,
    rows: Sequence[ChunkRow],
    chat: Chat,
    *,
    session_id: str,
    scope: str = "user",
) -> CommitResult:
    """Extract facts from ``rows`` with ``chat`` and store them (all three steps, in process).

    Raises:
        ExtractionError: The model's reply holds no JSON list of facts.
        MemoryStoreError: The store failed.
    """
    messages = commit_messages(store, rows, scope=scope)
    if not messages:
        return CommitResult()
    reply, usage = chat(messages)
    facts = parse_extracted_facts(reply, scope=scope)
    return write_facts(store, facts, session_id=session_id, usage=usage)


def commit_key(session_id: str, fact: ExtractedFact) -> str:
    """The idempotency key of ``fact`` committed from session ``session_id``."""
    digest = hashlib.sha256(f"{fact.scope}\0{fact_key(fact.content)}".encode()).hexdigest()
    return f"commit/{session_id}/{digest[:16]}"


def _stored_as(store: MemoryStore, fact: ExtractedFact) -> MemoryRecord | None:
    """The stored record saying the same as ``fact`` in its scope, if there is one."""
    wanted = fact_key(fact.content)
    hits = store.recall(fact.content, top_k=_SAME_FACT_CANDIDATES, scope=fact.scope, mode="lexical")
    return next((hit.record for hit in hits if fact_key(hit.content) == wanted), None)
