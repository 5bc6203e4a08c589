"""The payloads a sandbox dispatches (OpenRath's ``rath.backend.tool_types``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


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


ALL_CALLS: frozenset[type[BackendTool]] = frozenset(
    {
        BackendToolCommandRun,
        BackendToolFilesRead,
        BackendToolFilesWrite,
        BackendToolFilesList,
        BackendToolFilesExists,
        BackendToolCodeRun,
    }
)
"""Every payload type (what the built-in backends run)."""
