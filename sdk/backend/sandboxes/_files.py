"""Workspace-confined file primitives for host-directory sandboxes (blocking; run in a thread).

Every function takes ``root``, the real path of the workspace, and the path the model gave.
Messages show the model's path (or the workspace-relative one), never an absolute host path.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat

from rath.backend.results import FileContent, FileEntries, FileEntry, FileWriteResult
from rath.backend.sandboxes._base import ToolFailure

MAX_LIST_ENTRIES = 500
READ_CHUNK = 1 << 20
"""Bytes asked of ``os.read`` at a time (it allocates what it is asked for)."""


def resolve(root: str, path: str) -> tuple[str, str]:
    """Resolve ``path`` against the workspace, following symlinks, and confine it.

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


def read_file(root: str, path: str, encoding: str | None, cap: int | None) -> FileContent:
    """Read a regular file's first ``cap`` bytes (``None``: all); decode them (errors replaced)."""
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
        _confirm(fd, root, shown)
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise ToolFailure("is_a_directory", f"{shown!r} is a directory, not a file")
        if not stat.S_ISREG(mode):
            raise ToolFailure("invalid_argument", f"{shown!r} is not a regular file")
        data = _read_up_to(fd, cap)
    except OSError as exc:
        raise _os_failure(exc, shown) from None
    finally:
        os.close(fd)
    truncated = cap is not None and len(data) > cap
    return FileContent(data=data[:cap].decode(codec, errors="replace"), truncated=truncated)


def _read_up_to(fd: int, cap: int | None) -> bytes:
    """Up to ``cap + 1`` bytes of ``fd`` (one more tells a cut); everything when ``cap`` is None."""
    chunks: list[bytes] = []
    size = 0
    while cap is None or size <= cap:
        want = READ_CHUNK if cap is None else min(READ_CHUNK, cap + 1 - size)
        if not (chunk := os.read(fd, want)):
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


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
        directory = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise _os_failure(exc, shown) from None
    # Everything below is relative to that descriptor, checked once it is open: a command
    # that swaps a directory on the path for a symlink meanwhile cannot redirect the write.
    name, tmp = os.path.basename(real), f".rath-write-{secrets.token_hex(8)}.tmp"
    try:
        _confirm(directory, root, shown)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        fd = os.open(tmp, flags, 0o644, dir_fd=directory)
        os.fchmod(fd, 0o644)  # whatever the worker's umask
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, name, src_dir_fd=directory, dst_dir_fd=directory)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=directory)
        if isinstance(exc, OSError):
            raise _os_failure(exc, shown) from None
        raise
    finally:
        os.close(directory)
    return FileWriteResult(bytes_written=len(payload))


def list_files(root: str, path: str, limit: int | None = MAX_LIST_ENTRIES) -> FileEntries:
    """List a directory: the first ``limit`` entries (``None``: all) by name, workspace-relative."""
    real, shown = resolve(root, path)
    try:
        directory = os.open(real, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise _os_failure(exc, shown) from None
    try:
        _confirm(directory, root, shown)
        with os.scandir(directory) as scan:
            items = sorted((entry.name, _is_dir(entry)) for entry in scan)
    except OSError as exc:
        raise _os_failure(exc, shown) from None
    finally:
        os.close(directory)
    prefix = os.path.relpath(real, root).replace(os.sep, "/")
    entries = tuple(
        FileEntry(name=name, path=name if prefix == "." else f"{prefix}/{name}", is_dir=is_dir)
        for name, is_dir in items[:limit]
    )
    return FileEntries(entries=entries, truncated=limit is not None and len(items) > limit)


def path_exists(root: str, path: str) -> bool:
    """Whether ``path`` exists inside the workspace (outside paths are refused, not answered)."""
    real, shown = resolve(root, path)
    try:
        fd = os.open(real, os.O_PATH)
    except OSError:
        return False
    try:
        _confirm(fd, root, shown)
    finally:
        os.close(fd)
    return True


def encode_text(text: str, what: str) -> bytes:
    """Encode ``text`` as UTF-8, refusing lone surrogates (they cannot be written faithfully)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolFailure(
            "invalid_argument", f"the {what} is not valid Unicode (lone surrogate)"
        ) from None


def _confirm(fd: int, root: str, shown: str) -> None:
    """Refuse an opened file or directory that turns out not to be in the workspace.

    The path was checked before it was opened, but a command running at the same time may
    have swapped a directory on it for a symlink in between: what the descriptor is, not
    what the path said, decides (Linux: ``/proc/self/fd``; elsewhere the check before
    opening is all there is).
    """
    try:
        actual = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return
    if not is_inside(actual, root):
        raise ToolFailure(
            "path_outside_workspace",
            f"{shown!r} led outside the workspace while it was opened (a symlink swapped in)",
        )


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
