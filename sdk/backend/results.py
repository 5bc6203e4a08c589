"""What dispatched payloads return (OpenRath's ``rath.backend.results``)."""

from __future__ import annotations

from dataclasses import dataclass


class ToolResult:
    """Marker base of what a dispatched payload returns (besides ``bool``)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class CommandResult(ToolResult):
    """A command's exit code and output."""

    exit_code: int
    stdout: bytes
    stderr: bytes
    elapsed_ms: float


@dataclass(frozen=True, slots=True)
class FileContent(ToolResult):
    """A file's content: text, or bytes when read without an encoding."""

    data: bytes | str


@dataclass(frozen=True, slots=True)
class FileEntry:
    """One directory entry (``path`` is absolute where the backend has a host directory)."""

    name: str
    path: str
    is_dir: bool


@dataclass(frozen=True, slots=True)
class FileEntries(ToolResult):
    """A directory's entries, sorted by name."""

    entries: tuple[FileEntry, ...]


@dataclass(frozen=True, slots=True)
class FileWriteResult(ToolResult):
    """How many bytes a write stored."""

    bytes_written: int


@dataclass(frozen=True, slots=True)
class CodeResult(ToolResult):
    """A code run's output and error (``None`` when it succeeded)."""

    text: str | None
    stdout: bytes
    stderr: bytes
    error: str | None


@dataclass(frozen=True, slots=True)
class ToolExecutionFailure(ToolResult):
    """An expected failure, returned rather than raised (``timeout``, ``file_not_found``...)."""

    kind: str
    message: str
    detail: str | None = None


def tool_failure_from(
    kind: str, exc: BaseException, detail: str | None = None
) -> ToolExecutionFailure:
    """A failure of ``kind`` describing ``exc`` (the detail defaults to its class name)."""
    return ToolExecutionFailure(
        kind, str(exc), detail if detail is not None else type(exc).__name__
    )
