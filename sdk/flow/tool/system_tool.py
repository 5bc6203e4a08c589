"""OpenRath's built-in tool classes and session-level tool helpers (``rath.flow.tool.system_tool``).

See docs/sandboxes.md, "Where the code is".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar

from rath.backend import BackendSandbox, ToolResult
from rath.backend import tool_types as t
from rath.errors import ConfigError
from rath.session import Session
from rath.session.host import current_host
from rath.session.placement import NO_SANDBOX
from rath.tools import BUILTIN_TOOLS, FlowToolCall

MAX_COMMAND_CHARS = 2048
"""OpenRath's limit on a ``run_shell_command`` line."""


def dispatch_on(session: Session, call: t.BackendTool) -> ToolResult | bool:
    """Run ``call`` on ``session``'s sandbox.

    Raises:
        ConfigError: The session has no sandbox placement (also a ``RuntimeError``).
    """
    placement = session.sandbox
    if placement is None:
        raise ConfigError(NO_SANDBOX)
    sandbox: BackendSandbox = current_host().open_handle(placement)
    with sandbox:
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
    return dispatch_on(session, t.BackendToolCommandRun(cmd, env, cwd, stdin, timeout))


def flow_tool_files_read(session: Session, path: str, *, encoding: str | None = "utf-8") -> Any:
    """Read a file of the session's workspace."""
    return dispatch_on(session, t.BackendToolFilesRead(path, encoding))


def flow_tool_files_write(
    session: Session, path: str, data: bytes | str, *, mode: int = 0o644
) -> Any:
    """Write a file of the session's workspace."""
    return dispatch_on(session, t.BackendToolFilesWrite(path, data, mode))


def flow_tool_files_list(session: Session, path: str) -> Any:
    """List a directory of the session's workspace."""
    return dispatch_on(session, t.BackendToolFilesList(path))


def flow_tool_files_exists(session: Session, path: str) -> Any:
    """Whether a path exists in the session's workspace."""
    return dispatch_on(session, t.BackendToolFilesExists(path))


def flow_tool_code_run(
    session: Session, code: str, *, language: str = "python", timeout: float | None = None
) -> Any:
    """Run a code snippet in the session's sandbox."""
    return dispatch_on(session, t.BackendToolCodeRun(code, language, timeout))


class _SystemTool(FlowToolCall):
    """A built-in tool as a ``FlowToolCall`` (its definition comes from Rath's built-ins)."""

    resource: ClassVar[str]
    """The first part of the resource key; file tools add the path."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        built = BUILTIN_TOOLS[cls.name]
        cls.description = built.description
        cls.parameters = built.parameters

    def resource_key(self, arguments: Mapping[str, Any]) -> tuple[str, ...]:
        """OpenRath's keys: ``("exec",)``, ``("code",)`` or ``("fs:<op>", str(path))``."""
        if not self.resource.startswith("fs:"):
            return (self.resource,)
        if not isinstance(arguments, Mapping) or "path" not in arguments:
            return (self.resource, "<unknown>")
        return (self.resource, str(arguments["path"]))


class FlowToolCommandRun(_SystemTool):
    """``run_shell_command``: one shell command line in the sandbox workspace."""

    name = "run_shell_command"
    parallel_safe = False
    resource = "exec"

    def __call__(self, session: Session, arguments: Mapping[str, Any]) -> Any:
        """Run the call on the session's sandbox; returns the backend's raw result.

        Raises:
            ValueError: A multiline command, or one over 2048 characters.
        """
        cmd = str(arguments["cmd"])
        if "\n" in cmd or "\r" in cmd:
            raise ValueError("multiline commands are rejected")
        if len(cmd) > MAX_COMMAND_CHARS:
            raise ValueError("command too long")
        return flow_tool_command_run(session, cmd)


class FlowToolFilesRead(_SystemTool):
    """``read_workspace_file``."""

    name = "read_workspace_file"
    parallel_safe = True
    resource = "fs:read"

    def __call__(self, session: Session, arguments: Mapping[str, Any]) -> Any:
        """Run the call on the session's sandbox; returns the backend's raw result."""
        encoding = arguments.get("encoding", "utf-8")
        encoding = None if encoding is None else str(encoding)
        return flow_tool_files_read(session, str(arguments["path"]), encoding=encoding)


class FlowToolFilesWrite(_SystemTool):
    """``write_workspace_file``."""

    name = "write_workspace_file"
    parallel_safe = True
    resource = "fs:write"

    def __call__(self, session: Session, arguments: Mapping[str, Any]) -> Any:
        """Run the call on the session's sandbox; returns the backend's raw result.

        Raises:
            TypeError: ``content`` is not a string.
        """
        content = arguments["content"]
        if not isinstance(content, str):
            raise TypeError(f"content must be a string, not {type(content).__name__}")
        return flow_tool_files_write(session, str(arguments["path"]), content)


class FlowToolFilesList(_SystemTool):
    """``list_workspace_files``."""

    name = "list_workspace_files"
    parallel_safe = True
    resource = "fs:list"

    def __call__(self, session: Session, arguments: Mapping[str, Any]) -> Any:
        """Run the call on the session's sandbox; returns the backend's raw result."""
        return flow_tool_files_list(session, str(arguments["path"]))


class FlowToolFilesExists(_SystemTool):
    """``workspace_path_exists``."""

    name = "workspace_path_exists"
    parallel_safe = True
    resource = "fs:stat"

    def __call__(self, session: Session, arguments: Mapping[str, Any]) -> Any:
        """Run the call on the session's sandbox; returns the backend's raw result."""
        return flow_tool_files_exists(session, str(arguments["path"]))


class FlowToolCodeRun(_SystemTool):
    """``run_code``."""

    name = "run_code"
    parallel_safe = False
    resource = "code"

    def __call__(self, session: Session, arguments: Mapping[str, Any]) -> Any:
        """Run the call on the session's sandbox; returns the backend's raw result."""
        timeout = arguments.get("timeout")
        return flow_tool_code_run(
            session,
            str(arguments["code"]),
            language=str(arguments.get("language", "python")),
            timeout=None if timeout is None else float(timeout),
        )


_SYSTEM_TOOLS: Mapping[str, FlowToolCall] = MappingProxyType(
    {
        tool.name: tool
        for tool in (
            FlowToolCommandRun(),
            FlowToolFilesRead(),
            FlowToolFilesWrite(),
            FlowToolFilesList(),
            FlowToolFilesExists(),
            FlowToolCodeRun(),
        )
    }
)


def global_system_tools() -> Mapping[str, FlowToolCall]:
    """The six built-in tools by name (process-wide instances, read-only)."""
    return _SYSTEM_TOOLS
