"""The store's trash: where GC puts chunks before deleting them for good. See docs/modules.md."""

from __future__ import annotations

import hashlib
import os
import re
import time
from pathlib import Path

from rath.store.objects import DirectoryStore, ObjectStore

TRASH_PREFIX = "trash/"
"""Key prefix of the trash (``trash/ab/cdef...`` holds the chunk ``ab/cdef...``)."""

_CHUNK_KEY = re.compile(r"[0-9a-f]{2}/[0-9a-f]{62}")


def is_chunk_key(key: str) -> bool:
    """Whether ``key`` names a content-addressed chunk or node (``ab/`` + 62 hex digits)."""
    return _CHUNK_KEY.fullmatch(key) is not None


def trash_key(key: str) -> str:
    """Where the chunk ``key`` lies in the trash."""
    return TRASH_PREFIX + key


def move_to_trash(objects: ObjectStore, key: str) -> int | None:
    """Move the chunk ``key`` to the trash, its trash copy stamped with the time of the move."""
    if isinstance(objects, DirectoryStore):
        return _rename_to_trash(objects.root, key)
    try:
        data = objects.get(key)
    except FileNotFoundError:
        return None
    objects.put(trash_key(key), data, overwrite=True)  # a fresh write: its age starts now
    objects.delete(key)
    return len(data)


def _rename_to_trash(root: Path, key: str) -> int | None:
    source, target = root / key, root / trash_key(key)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        size = source.stat().st_size
        os.replace(source, target)  # atomic: the chunk is in one place or the other
    except FileNotFoundError:
        return None
    now = time.time()
    os.utime(target, (now, now))  # the trash age is the time of the move, not of the write
    return size


def restore(objects: ObjectStore, key: str) -> bytes | None:
    """Put the chunk ``key`` back from the trash; returns its bytes, or None if not there."""
    try:
        data = objects.get(trash_key(key))
    except FileNotFoundError:
        return None
    if hashlib.sha256(data).hexdigest() != key.replace("/", ""):
        return None
    objects.put(key, data)
    return data
