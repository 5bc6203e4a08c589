"""Where the store's bytes live: an object-store interface, its directory. See docs/modules.md."""

from __future__ import annotations

import itertools
import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from rath.errors import SettingError, StoreError

_M = TypeVar("_M", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class ObjectInfo:
    """One listed object: its key and when it was last written (epoch seconds)."""

    key: str
    modified: float
    size: int


class ObjectStore(Protocol):
    """Blobs by key. Writes are whole-object and atomic; readers never see half an object."""

    def put(self, key: str, data: bytes, *, overwrite: bool = False) -> bool:
        """Write ``data`` under ``key``; returns False when it exists and ``overwrite`` is off."""
        ...

    def get(self, key: str) -> bytes:
        """The bytes under ``key``; raises ``FileNotFoundError`` when there are none."""
        ...

    def exists(self, key: str) -> bool:
        """Whether ``key`` holds an object."""
        ...

    def delete(self, key: str) -> None:
        """Remove ``key`` (a missing key is not an error)."""
        ...

    def list(self, prefix: str = "") -> Iterator[ObjectInfo]:
        """Every object whose key starts with ``prefix``, in no particular order."""
        ...

    def describe(self) -> str:
        """Where the objects are, for messages (a path or a URL)."""
        ...

    def check(self) -> None:
        """Fail now, in one line, when the store cannot be used (missing, unreachable, refused).

        Raises:
            SettingError: Naming the store, what is wrong and the setting to fix.
        """
        ...


_SERIAL = itertools.count()
_TAG = os.urandom(4).hex()  # a temp file left by an earlier process of the same pid never clashes
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


class DirectoryStore:
    """Objects as files under ``root`` (``ab/cdef`` is ``root/ab/cdef``)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"DirectoryStore({str(self.root)!r})"

    def describe(self) -> str:
        """The directory."""
        return str(self.root)

    def check(self) -> None:
        """Create the directory if needed; fail if it cannot be, or cannot be written."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            problem = f"cannot be created ({exc.strerror or exc})"
        else:
            if os.access(self.root, os.W_OK | os.X_OK):
                return
            problem = "is not writable by this process"
        raise SettingError(
            f"the chunk store directory {self.root} {problem}: fix RATH_STORE_URL (or "
            "RATH_STORE_DIR, or RATH_HOME)"
        )

    def _path(self, key: str) -> Path:
        return self.root / key

    def put(self, key: str, data: bytes, *, overwrite: bool = False) -> bool:
        """Write through a temporary file and a rename, so the object appears whole."""
        path = os.path.join(self.root, key)
        if not overwrite and os.path.exists(path):
            return False
        # A name no other thread or process uses (``list`` skips dot files); cheaper than
        # ``mkstemp``, which draws random names and retries them.
        folder = os.path.dirname(path)
        tmp = f"{folder}/.tmp-{_TAG}-{os.getpid()}-{threading.get_ident()}-{next(_SERIAL)}"
        try:
            fd = os.open(tmp, _CREATE, 0o600)
        except FileNotFoundError:  # the object's directory is made on its first write
            os.makedirs(folder, exist_ok=True)
            fd = os.open(tmp, _CREATE, 0o600)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return True

    def get(self, key: str) -> bytes:
        """Read the file; ``FileNotFoundError`` when it is missing."""
        return self._path(key).read_bytes()

    def exists(self, key: str) -> bool:
        """Whether the file exists."""
        return self._path(key).exists()

    def delete(self, key: str) -> None:
        """Remove the file, if any."""
        self._path(key).unlink(missing_ok=True)

    def list(self, prefix: str = "") -> Iterator[ObjectInfo]:
        """Walk the directory below ``prefix`` (temporary files and lock files left out)."""
        folder = prefix.rpartition("/")[0]
        start = self._path(folder) if folder else self.root
        if not start.is_dir():
            return
        for dirpath, _, filenames in os.walk(start):
            for name in filenames:
                if name.startswith("."):
                    continue
                path = Path(dirpath) / name
                key = path.relative_to(self.root).as_posix()
                if not key.startswith(prefix):
                    continue
                try:
                    stat = path.stat()
                except FileNotFoundError:  # deleted while listing
                    continue
                yield ObjectInfo(key, stat.st_mtime, stat.st_size)


def read_model(objects: ObjectStore, key: str, model: type[_M], what: str) -> _M | None:
    """The ``model`` stored as JSON under ``key``, or None when there is no such object.

    Raises:
        StoreError: The object is not a valid ``model`` (the message names ``what``, the key
            and the store).
    """
    try:
        data = objects.get(key)
    except FileNotFoundError:
        return None
    try:
        return model.model_validate(json.loads(data))
    except (ValueError, ValidationError) as exc:
        raise StoreError(
            f"{what} {key!r} in {objects.describe()!r} is unreadable ({exc}); "
            "delete it, or restore it from a backup of the store"
        ) from exc
