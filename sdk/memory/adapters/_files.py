"""A local store's files: memory URIs to paths, and the listing rules.

``memory://<scope>/<a>/<b>`` is ``<store>/<scope>/<a>/<b>.md`` (or the file itself when it
has an extension of its own). Sidecars (``.vec``, ``.meta.json``) and ``meta.json`` never
show in listings; ``.md`` entries show without their extension.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from rath.memory.results import MemoryEntry
from rath.memory.uri import MEMORY_URI_PREFIX, split_memory_uri

__all__ = ["entries", "is_entry", "path_of", "readable", "uri_of"]

_HIDDEN_SUFFIXES = (".vec", ".meta.json")
_META = "meta.json"


def path_of(root: Path, uri: str) -> Path:
    """The directory or base path ``uri`` names inside ``root``.

    Raises:
        ValueError: Not a valid memory URI, or a path that leaves the store.
    """
    scope, segments = split_memory_uri(uri)
    path = root.joinpath(scope, *segments) if scope else root
    resolved = path.resolve()
    if resolved != root.resolve() and root.resolve() not in resolved.parents:
        raise ValueError(f"memory URI {uri!r} leaves the store")
    return path


def is_entry(root: Path, base: Path) -> bool:
    """Whether ``base`` can hold an entry: below a scope, not a scope or the store itself."""
    return root not in (base, base.parent)


def readable(base: Path) -> Path | None:
    """The file an entry's base path stands for: ``<base>.md``, else ``<base>``."""
    for candidate in (base.with_name(base.name + ".md"), base):
        if candidate.is_file():
            return candidate
    return None


def uri_of(root: Path, path: Path) -> str:
    """The memory URI of ``path`` inside ``root`` (``.md`` dropped)."""
    relative = path.relative_to(root).as_posix()
    return MEMORY_URI_PREFIX + relative.removesuffix(".md")


def entries(root: Path, directory: Path, depth: int) -> Iterator[MemoryEntry]:
    """The visible entries under ``directory``, ``depth`` levels below its children."""
    if not directory.is_dir():
        return
    for child in sorted(directory.iterdir()):
        if child.name == _META or child.name.endswith(_HIDDEN_SUFFIXES):
            continue
        is_dir = child.is_dir()
        yield MemoryEntry(
            name=child.name if is_dir else child.name.removesuffix(".md"),
            uri=uri_of(root, child),
            is_dir=is_dir,
            size=None if is_dir else child.stat().st_size,
        )
        if is_dir and depth > 0:
            yield from entries(root, child, depth - 1)
