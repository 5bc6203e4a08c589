"""How injected memories look in a transcript, so they are recognised and never re-committed.

An injected memory is a SYSTEM row whose content starts with :data:`MEMORY_PREFIX`, followed
by the memory's URI on the first line and its content on the next::

    [memory] memory://user/memories/preferences/3f9a0c1d2e4b5a69
    The user prefers dark mode.

The marker is in the content itself (rows carry no metadata), so it survives the chunk store,
forks and merges, and costs nothing in workflow payloads.
"""

from __future__ import annotations

from collections.abc import Iterable

from rath.memory._records import MemoryRecord
from rath.session._chunks import ChunkKind, ChunkRow, system_text_chunk

MEMORY_PREFIX = "[memory] "


def memory_row(record: MemoryRecord) -> ChunkRow:
    """The SYSTEM row that injects ``record`` into a transcript."""
    return system_text_chunk(f"{MEMORY_PREFIX}{record.uri}\n{record.content}")


def is_memory_row(row: ChunkRow) -> bool:
    """Whether ``row`` is an injected memory (a SYSTEM row starting with the prefix)."""
    content = row.payload.get("content")
    return (
        row.kind is ChunkKind.SYSTEM
        and isinstance(content, str)
        and content.startswith(MEMORY_PREFIX)
    )


def injected_memory_uris(rows: Iterable[ChunkRow]) -> set[str]:
    """The URIs of the memories already injected into ``rows`` (to avoid injecting twice)."""
    uris: set[str] = set()
    for row in rows:
        if is_memory_row(row):
            head = str(row.payload["content"])[len(MEMORY_PREFIX) :]
            uris.add(head.split("\n", 1)[0].strip())
    return uris
