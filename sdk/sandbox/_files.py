"""Workspace-confined file primitives for host-directory sandboxes (blocking; run in a thread).

Every function takes ``root``, the real path of the workspace, and the path the model gave.
Messages show the model's path (or the workspace-relative one), never an absolute host path.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile

from rath.sandbox._base import ToolFailure
from rath.sandbox._results import FileContent, FileEntries, FileEntry, FileWriteResult

MAX_LIST_ENTRIES = 500


def resolve(root: str, path: str) -> tuple[str, str]:
    """Resolve ``path`` against the workspace, following symlinks, and confine it.

    Args:
        root: The real path of the workspace root.
        path: A workspace-relative path, or an absolute path inside the workspace.

    Returns:
        ``(real_path, shown)``: the resolved host path and the path to show in messages.

    Raises:
        ToolFailure: ``invalid_argument`` or ``path_outside_workspace``.
    """
    if not isinstance(path, str):
        raise ToolFailure("invalid_argument", "path must be a string")
    if "\0" in path:
        raise ToolFailure("invalid_argument", "path contains a NUL character")
    real = os.path.realpath(os.path.join(root, path))
    inside = is_inside(real, root)
    if not os.path.isabs(path):
        shown = path
    elif inside:
        shown = os.path.relpath(real, root)
    else:
        shown = "<absolute path>"
    if not inside:
        raise ToolFailure(
            "path_outside_workspace",
            f"{shown!r} is outside the workspace; use a path relative to the workspace root",
        )
    return real, shown


def is_inside(path: str, directory: str) -> bool:
    """Whether ``path`` is ``directory`` or below it, once symlinks in both are resolved.

    The one confinement test of the sandboxes: :func:`resolve` uses it for every file
    primitive, and ``bwrap`` to decide which host directories its fresh ``/tmp`` hides.
    """
    path, directory = os.path.realpath(path), os.path.realpath(directory)
    return os.path.commonpath([path, directory]) == directory


def read_file(root: str, path: str, encoding: str | None, cap: int) -> FileContent:
    """Read at most ``cap`` bytes of a regular file and decode them (errors replaced)."""
    real, shown = resolve(root, path)
    codec = encoding or "utf-8"
    try:
        b"a".decode(codec, errors="replace")  # b"" would skip the codec lookup
    except (LookupError, TypeError):
        raise ToolFailure("invalid_argument", f"unknown text encoding {encoding!r}") from None
    try:
        # O_NONBLOCK so that opening a FIFO cannot hang the thread; non-regular files are refused.
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise _os_failure(exc, shown) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise ToolFailure("is_a_directory", f"{shown!r} is a directory, not a file")
        if not stat.S_ISREG(mode):
            raise ToolFailure("invalid_argument", f"{shown!r} is not a regular file")
        chunks: list[bytes] = []
        size = 0
        while size <= cap and (chunk := os.read(fd, cap + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise _os_failure(exc, shown) from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    return FileContent(data=data[:cap].decode(codec, errors="replace"), truncated=size > cap)


def write_file(root: str, path: str, data: str | bytes) -> FileWriteResult:
    """Write ``data`` atomically: a temporary file in the same directory, then ``os.replace``."""
    real, shown = resolve(root, path)
    payload = encode_text(data, "content") if isinstance(data, str) else bytes(data)
    if real == root or os.path.isdir(real):
        raise ToolFailure("is_a_directory", f"{shown!r} is a directory")
    parent = os.path.dirname(real)
    try:
        os.makedirs(parent, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise ToolFailure(
            "not_a_directory", f"a parent of {shown!r} exists and is not a directory"
        ) from None
    except OSError as exc:
        raise _os_failure(exc, shown) from None
    try:
        fd, tmp = tempfile.mkstemp(dir=parent, prefix=".rath-write-", suffix=".tmp")
    except OSError as exc:
        raise _os_failure(exc, shown) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, real)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise _os_failure(exc, shown) from None
        raise
    return FileWriteResult(bytes_written=len(payload))


def list_files(root: str, path: str) -> FileEntries:
    """List a directory: first :data:`MAX_LIST_ENTRIES` entries by name, workspace-relative."""
    real, shown = resolve(root, path)
    try:
        with os.scandir(real) as scan:
            items = sorted((entry.name, _is_dir(entry)) for entry in scan)
    except OSError as exc:
        raise _os_failure(exc, shown) from None
    prefix = os.path.relpath(real, root).replace(os.sep, "/")
    entries = tuple(
        FileEntry(name=name, path=name if prefix == "." else f"{prefix}/{name}", is_dir=is_dir)
        for name, is_dir in items[:MAX_LIST_ENTRIES]
    )
    return FileEntries(entries=entries, truncated=len(items) > MAX_LIST_ENTRIES)


def path_exists(root: str, path: str) -> bool:
    """Whether ``path`` exists inside the workspace (outside paths are refused, not answered)."""
    real, _ = resolve(root, path)
    return os.path.exists(real)


def encode_text(text: str, what: str) -> bytes:
    """Encode ``text`` as UTF-8, refusing lone surrogates (they cannot be written faithfully)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolFailure(
            "invalid_argument", f"the {what} is not valid Unicode (lone surrogate)"
        ) from None


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _os_failure(exc: OSError, shown: str) -> ToolFailure:
    if isinstance(exc, FileNotFoundError):
        return ToolFailure("file_not_found", f"{shown!r} does not exist", type(exc).__name__)
    if isinstance(exc, NotADirectoryError):
        return ToolFailure(
            "not_a_directory", f"{shown!r} (or one of its parents) is not a directory"
        )
    if isinstance(exc, IsADirectoryError):
        return ToolFailure("is_a_directory", f"{shown!r} is a directory")
    # strerror only: str(exc) would include the absolute host path.
    reason = exc.strerror or type(exc).__name__
    return ToolFailure("os_error", f"{shown!r}: {reason}", type(exc).__name__)
