"""The backend plane's values: tool payloads, their results, capabilities."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum


class IsolationLevel(StrEnum):
    """How strongly a backend keeps work away from the host."""

    PROCESS = "process"
    NAMESPACE = "namespace"
    CONTAINER = "container"
    MICROVM = "microvm"
    VM = "vm"


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a backend can do, and how well it isolates."""

    isolation: IsolationLevel
    supports_command: bool
    supports_filesystem: bool
    supports_code_interpreter: bool
    cold_start_ms_p50: int | None = None
    max_sandboxes: int | None = None

    @property
    def supports_code(self) -> bool:
        """Rath's name for ``supports_code_interpreter``."""
        return self.supports_code_interpreter


class BackendTool:
    """Marker base of the payloads a sandbox dispatches."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class BackendToolCommandRun(BackendTool):
    """Run a command (a string runs under ``/bin/sh -c``; a sequence is an argv)."""

    cmd: str | Sequence[str]
    env: Mapping[str, str] | None = None
    cwd: str | None = None
    stdin: bytes | None = None
    timeout: float | None = None


@dataclass(frozen=True, slots=True)
class BackendToolFilesRead(BackendTool):
    """Read a file (``encoding=None``: bytes)."""

    path: str
    encoding: str | None = "utf-8"


@dataclass(frozen=True, slots=True)
class BackendToolFilesWrite(BackendTool):
    """Write a file, creating its parent directories."""

    path: str
    data: bytes | str
    mode: int = 0o644


@dataclass(frozen=True, slots=True)
class BackendToolFilesList(BackendTool):
    """List a directory (not recursive)."""

    path: str


@dataclass(frozen=True, slots=True)
class BackendToolFilesExists(BackendTool):
    """Whether a path exists (the answer is a plain ``bool``)."""

    path: str


@dataclass(frozen=True, slots=True)
class BackendToolCodeRun(BackendTool):
    """Run a code snippet."""

    code: str
    language: str = "python"
    timeout: float | None = None


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
