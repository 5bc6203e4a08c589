"""Injection: which recalled memories go into a transcript, and how they are marked there.

``[memory] <uri>`` then the content; OpenRath's ``[memory:<uri>] <snippet>`` is recognised too
(docs/memory.md, "Injection").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rath.memory.results import MemoryHit, MemoryRecord
from rath.session.chunk import ChunkKind, ChunkRow, system_text_chunk

MEMORY_PREFIX = "[memory] "
OPENRATH_PREFIX = "[memory:"
MAX_QUERY_CHARS = 2_000
"""The most characters of user text a recall query uses (the newest are kept)."""


def memory_row(record: MemoryRecord) -> ChunkRow:
    """The SYSTEM row that injects ``record`` into a transcript."""
    return system_text_chunk(f"{MEMORY_PREFIX}{record.uri}\n{record.content}")


def is_memory_row(row: ChunkRow) -> bool:
    """Whether ``row`` is an injected memory (a SYSTEM row in either marked form)."""
    return _marked_uri(row) is not None


def injected_memory_uris(rows: Iterable[ChunkRow]) -> set[str]:
    """The URIs of the memories already injected into ``rows``."""
    return {uri for row in rows if (uri := _marked_uri(row)) is not None}


def injection_query(rows: Sequence[ChunkRow]) -> str | None:
    """The recall query for a transcript: its newest user text, or ``None`` if it has none."""
    texts: list[str] = []
    for row in reversed(rows):
        if row.kind is ChunkKind.ASSISTANT and texts:
            break
        content = row.payload.get("content")
        if row.kind is ChunkKind.USER and isinstance(content, str) and content.strip():
            texts.append(content.strip())
    return "\n".join(reversed(texts))[-MAX_QUERY_CHARS:] if texts else None


def injectable(hits: Iterable[MemoryHit], rows: Iterable[ChunkRow]) -> list[MemoryHit]:
    """The hits to inject into ``rows``: positive scores, not injected before, no repeats."""
    seen = injected_memory_uris(rows)
    chosen: list[MemoryHit] = []
    for hit in hits:
        if hit.score > 0 and hit.uri not in seen:
            seen.add(hit.uri)
            chosen.append(hit)
    return chosen


def _marked_uri(row: ChunkRow) -> str | None:
    content = row.payload.get("content")
    if row.kind is not ChunkKind.SYSTEM or not isinstance(content, str):
        return None
    if content.startswith(MEMORY_PREFIX):
        return content[len(MEMORY_PREFIX) :].split("\n", 1)[0].strip()
    if content.startswith(OPENRATH_PREFIX) and "]" in content:
        return content[len(OPENRATH_PREFIX) : content.index("]")].strip()
    return None
