"""Directories named by id under one root: local sandboxes' and local memory stores' homes."""

from __future__ import annotations

import math
import shutil
import time
import uuid
from pathlib import Path
from typing import ClassVar

__all__ = ["LocalDirRegistry", "local_dir"]


def local_dir(root: Path, local_id: uuid.UUID | str, kind: str) -> Path:
    """``root / local_id``, for a ``kind`` ("local sandbox") whose id must be a plain name.

    Raises:
        ValueError: ``local_id`` is not one plain directory name.
    """
    name = str(local_id)
    if not name or name in (".", "..") or "/" in name or "\\" in name:
        raise ValueError(f"invalid {kind} id {name!r}: use a plain name or a UUID")
    return root / name


class LocalDirRegistry:
    """Directories under one root, one per id: a UUID, or a plain name a caller picks.

    A subclass names its root and ``kind``; it may narrow which names :meth:`list_local` counts
    as ids (:meth:`_is_id`) and which file says when a directory was last touched (:meth:`_stamp`).
    """

    kind: ClassVar[str]  # what an id names, in error messages: "local sandbox"

    def _root(self) -> Path:
        """The directory the ids' directories live in (not created)."""
        raise NotImplementedError

    def _is_id(self, name: str) -> bool:
        """Whether directory ``name`` is listed: any name that parses as a UUID."""
        try:
            uuid.UUID(name)
        except ValueError:
            return False
        return True

    def _stamp(self, path: Path) -> Path:
        """The file whose modification time is when directory ``path`` was last touched."""
        return path

    def alloc_local_id(self) -> uuid.UUID:
        """A new id (a UUID), with its directory created."""
        local_id = uuid.uuid4()
        self.ensure_local(local_id)
        return local_id

    def ensure_local(self, local_id: uuid.UUID | str) -> Path:
        """The directory of ``local_id``, created if missing."""
        path = self.local_path(local_id)
        path.mkdir(parents=True, exist_ok=True)
        return path

    def local_path(self, local_id: uuid.UUID | str) -> Path:
        """The directory of ``local_id`` (not created)."""
        return local_dir(self._root(), local_id, self.kind)

    def list_local(self) -> list[uuid.UUID]:
        """The ids of the UUID-named directories, sorted (other names are not listed)."""
        root = self._root()
        if not root.is_dir():
            return []
        return sorted(
            uuid.UUID(p.name) for p in root.iterdir() if p.is_dir() and self._is_id(p.name)
        )

    def delete_local(self, local_id: uuid.UUID | str) -> bool:
        """Delete the directory of ``local_id`` and everything in it; whether there was one."""
        path = self.local_path(local_id)
        if not path.is_dir():
            return False
        shutil.rmtree(path)
        return True

    def _stale(self, seconds: float) -> list[uuid.UUID]:
        """The listed ids whose directory was last touched more than ``seconds`` ago."""
        cutoff = time.time() - seconds
        return [i for i in self.list_local() if self._touched(self.local_path(i)) < cutoff]

    def _touched(self, path: Path) -> float:
        try:
            return self._stamp(path).stat().st_mtime
        except OSError:
            return math.inf  # gone meanwhile: nothing to prune
