"""How injected memories look in a transcript, so they are recognised and never re-committed.

``[memory] <uri>`` then the content; OpenRath's ``[memory:<uri>] <snippet>`` too (docs/memory.md).
"""

from __future__ import annotations

from collections.abc import Iterable

from rath.memory.results import MemoryRecord
from rath.session.chunk import ChunkKind, ChunkRow, system_text_chunk

MEMORY_PREFIX = "[memory] "
OPENRATH_PREFIX = "[memory:"


def memory_row(record: MemoryRecord) -> ChunkRow:
    """The SYSTEM row that injects ``record`` into a transcript."""
    return system_text_chunk(f"{MEMORY_PREFIX}{record.uri}\n{record.content}")


def is_memory_row(row: ChunkRow) -> bool:
    """Whether ``row`` is an injected memory (a SYSTEM row in either marked form)."""
    return _marked_uri(row) is not None


def injected_memory_uris(rows: Iterable[ChunkRow]) -> set[str]:
    """The URIs of the memories already injected into ``rows`` (to avoid injecting twice)."""
    return {uri for row in rows if (uri := _marked_uri(row)) is not None}


def _marked_uri(row: ChunkRow) -> str | None:
    """The URI an injected-memory row names, or ``None`` for any other row."""
    content = row.payload.get("content")
    if row.kind is not ChunkKind.SYSTEM or not isinstance(content, str):
        return None
    if content.startswith(MEMORY_PREFIX):
        return content[len(MEMORY_PREFIX) :].split("\n", 1)[0].strip()
    if content.startswith(OPENRATH_PREFIX) and "] " in content:
        return content[len(OPENRATH_PREFIX) : content.index("] ")].strip()
    return None
