"""What sandbox primitives return: small frozen dataclasses with decoded, capped text."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CommandResult:
    """The outcome of a shell command that ran to completion (any exit code).

    Attributes:
        exit_code: The process exit status (negative: killed by that signal).
        stdout: Decoded standard output, capped; ends with a truncation marker when cut.
        stderr: Decoded standard error, capped likewise.
        elapsed_ms: Wall-clock duration in milliseconds.
        truncated: Whether either stream was cut at the cap.
    """

    exit_code: int
    stdout: str
    stderr: str
    elapsed_ms: float
    truncated: bool = False


@dataclass(frozen=True, slots=True)
class FileContent:
    """A file's content, decoded.

    Attributes:
        data: The decoded text (undecodable bytes become U+FFFD).
        truncated: Whether the file was longer than the read cap.
    """

    data: str
    truncated: bool = False


@dataclass(frozen=True, slots=True)
class FileEntry:
    """One directory entry.

    Attributes:
        name: The entry's file name.
        path: The entry's path relative to the workspace root (POSIX separators).
        is_dir: Whether the entry is (or links to) a directory.
    """

    name: str
    path: str
    is_dir: bool


@dataclass(frozen=True, slots=True)
class FileEntries:
    """A non-recursive directory listing.

    Attributes:
        entries: Entries sorted by name.
        truncated: Whether the directory held more entries than were listed.
    """

    entries: tuple[FileEntry, ...]
    truncated: bool = False


@dataclass(frozen=True, slots=True)
class FileWriteResult:
    """The outcome of a file write.

    Attributes:
        bytes_written: Size of the written file in bytes.
    """

    bytes_written: int


@dataclass(frozen=True, slots=True)
class CodeResult:
    """The outcome of a code snippet that ran to completion (any exit code).

    Attributes:
        exit_code: The interpreter's exit status.
        stdout: Decoded standard output, capped.
        stderr: Decoded standard error, capped.
        error: The error text (stderr) when the exit code is not zero, else ``None``.
        truncated: Whether either stream was cut at the cap.
    """

    exit_code: int
    stdout: str
    stderr: str
    error: str | None
    truncated: bool = False
