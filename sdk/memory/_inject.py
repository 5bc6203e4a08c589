"""Injection rules: which recalled memories go into a transcript (docs/memory.md, "Injection")."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rath.memory._marker import injected_memory_uris
from rath.memory.results import MemoryHit
from rath.session.chunk import ChunkKind, ChunkRow

MAX_QUERY_CHARS = 2_000
"""The most characters of user text a recall query uses (the newest are kept)."""


def injection_query(rows: Sequence[ChunkRow]) -> str | None:
    """The recall query for a transcript: its newest user text, or ``None`` if it has none."""
    texts: list[str] = []
    for row in reversed(rows):
        if row.kind is ChunkKind.ASSISTANT and texts:
            break
        text = _user_text(row)
        if text:
            texts.append(text)
    if not texts:
        return None
    query = "\n".join(reversed(texts))
    return query[-MAX_QUERY_CHARS:]


def injectable(hits: Iterable[MemoryHit], rows: Iterable[ChunkRow]) -> list[MemoryHit]:
    """The hits to inject into ``rows``: positive scores, not injected before, no repeats."""
    seen = injected_memory_uris(rows)
    chosen: list[MemoryHit] = []
    for hit in hits:
        if hit.score > 0 and hit.uri not in seen:
            seen.add(hit.uri)
            chosen.append(hit)
    return chosen


def _user_text(row: ChunkRow) -> str:
    content = row.payload.get("content")
    if row.kind is not ChunkKind.USER or not isinstance(content, str):
        return ""
    return content.strip()
