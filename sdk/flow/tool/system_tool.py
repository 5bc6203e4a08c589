"""OpenRath's session-level tool helpers: one backend payload on a session's sandbox.

Each helper opens the session's placement through :mod:`rath.backend` (the same workspace the
agent's tool calls use), dispatches one payload, closes the handle, and returns the backend's
raw result (a ``ToolResult`` or a ``bool``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rath.backend import (
    BackendTool,
    BackendToolCodeRun,
    BackendToolCommandRun,
    BackendToolFilesExists,
    BackendToolFilesList,
    BackendToolFilesRead,
    BackendToolFilesWrite,
    ToolResult,
)
from rath.errors import ConfigError
from rath.session import Session
from rath.session._handles import NO_SANDBOX
from rath.session._plane_handles import open_placement


def dispatch_on(session: Session, call: BackendTool) -> ToolResult | bool:
    """Run ``call`` on ``session``'s sandbox.

    Raises:
        ConfigError: The session has no sandbox placement (also a ``RuntimeError``).
    """
    placement = session.sandbox
    if placement is None:
        raise ConfigError(NO_SANDBOX)
    with open_placement(placement) as sandbox:
        return sandbox.dispatch(call)


def flow_tool_command_run(
    session: Session,
    cmd: str | Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    stdin: bytes | None = None,
    timeout: float | None = None,
) -> Any:
    """Run a command in the session's sandbox."""
    return dispatch_on(session, BackendToolCommandRun(cmd, env, cwd, stdin, timeout))


def flow_tool_files_read(session: Session, path: str, *, encoding: str | None = "utf-8") -> Any:
    """Read a file of the session's workspace."""
    return dispatch_on(session, BackendToolFilesRead(path, encoding))


def flow_tool_files_write(
    session: Session, path: str, data: bytes | str, *, mode: int = 0o644
) -> Any:
    """Write a file of the session's workspace."""
    return dispatch_on(session, BackendToolFilesWrite(path, data, mode))


def flow_tool_files_list(session: Session, path: str) -> Any:
    """List a directory of the session's workspace."""
    return dispatch_on(session, BackendToolFilesList(path))


def flow_tool_files_exists(session: Session, path: str) -> Any:
    """Whether a path exists in the session's workspace."""
    return dispatch_on(session, BackendToolFilesExists(path))


def flow_tool_code_run(
    session: Session, code: str, *, language: str = "python", timeout: float | None = None
) -> Any:
    """Run a code snippet in the session's sandbox."""
    return dispatch_on(session, BackendToolCodeRun(code, language, timeout))
