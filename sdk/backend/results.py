"""What dispatched payloads return (OpenRath's ``rath.backend.results``)."""

from __future__ import annotations

from dataclasses import dataclass, field


class ToolResult:
    """Marker base of what a dispatched payload returns (besides ``bool``)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class CommandResult(ToolResult):
    """A command's exit code and output (bytes; Rath's sandbox primitives: capped text)."""

    exit_code: int
    stdout: bytes | str
    stderr: bytes | str
    elapsed_ms: float
    truncated: bool = field(default=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class FileContent(ToolResult):
    """A file's content: text, or bytes when read without an encoding."""

    data: bytes | str
    truncated: bool = field(default=False, kw_only=True)


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
    truncated: bool = field(default=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class FileWriteResult(ToolResult):
    """How many bytes a write stored."""

    bytes_written: int


@dataclass(frozen=True, slots=True)
class CodeResult(ToolResult):
    """A code run's output and error (``None`` when it succeeded)."""

    text: str | None
    stdout: bytes | str
    stderr: bytes | str
    error: str | None
    exit_code: int = field(default=0, kw_only=True)
    truncated: bool = field(default=False, kw_only=True)


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
