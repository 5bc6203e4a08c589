"""The six built-in tools, OpenRath's ``FlowTool*`` classes, which the tool activity runs too.

Names and schemas are OpenRath's; the durable bodies and keys: docs/sandboxes.md.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

from rath.backend import tool_types as t
from rath.backend.abc import BackendSandbox
from rath.backend.results import ToolResult
from rath.backend.sandboxes import SandboxBackend, ToolFailure, check_command
from rath.contracts.tools import function_schema
from rath.errors import ConfigError
from rath.session.host import current_host
from rath.session.placement import NO_SANDBOX
from rath.tools.base import FlowToolCall
from rath.tools.bodies import backend_result_body, dumps, error_body, exception_body
from rath.tools.schema import check_object

if TYPE_CHECKING:
    from rath.session import Session

Body = dict[str, Any]
MAX_COMMAND_CHARS = 2048
"""OpenRath's limit on a model's ``run_shell_command`` line (sandboxes take longer ones)."""


@dataclass(frozen=True)
class ToolOutcome:
    """A durable tool call's result body, whether it succeeded, and an unexpected error if any."""

    body: str
    ok: bool
    error: BaseException | None = field(default=None, compare=False)


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


class SystemTool(FlowToolCall):
    """A built-in tool: run on the session's sandbox (``__call__``) or durably (``arun``)."""

    description: str
    lane: ClassVar[str] = "fs"
    """The durable loop's key head: ``"exec"``, ``"code"``, or ``"fs"`` (keyed by path)."""
    resource: ClassVar[str]
    """OpenRath's key head: ``"exec"``, ``"code"`` or ``"fs:<op>"`` (keyed by path)."""

    def resource_key(self, arguments: Mapping[str, Any]) -> tuple[str, ...]:
        """OpenRath's keys: ``("exec",)``, ``("code",)`` or ``("fs:<op>", str(path))``."""
        if not self.resource.startswith("fs:"):
            return (self.resource,)
        if not isinstance(arguments, Mapping) or "path" not in arguments:
            return (self.resource, "<unknown>")
        return (self.resource, str(arguments["path"]))

    def lane_key(self, arguments: Mapping[str, Any]) -> tuple[str, ...]:
        """The durable loop's keys: every file tool on one normalised path shares one."""
        if self.lane != "fs":
            return (self.lane,)
        path = arguments.get("path") if isinstance(arguments, Mapping) else None
        if not isinstance(path, str):
            return ("fs", "<unknown>")
        return ("fs", posixpath.normpath(path) if path else ".")

    def to_schema(self) -> dict[str, Any]:
        """The OpenAI wire tool dict (a deep copy, safe to mutate)."""
        return function_schema(self.name, self.description, self.parameters)

    async def arun(self, box: SandboxBackend, args: Mapping[str, Any], key: str | None) -> Body:
        """Run valid ``args`` on ``box``: the body (expected failures raise ``ToolFailure``)."""
        raise NotImplementedError


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


_PATH = {"type": "string", "description": "Path relative to the workspace root."}


class FlowToolCommandRun(SystemTool):
    """``run_shell_command``: one shell command line in the sandbox workspace."""

    name = "run_shell_command"
    description = (
        "Run one shell command (/bin/sh -c) in the sandbox workspace directory and return "
        "its exit code, stdout and stderr. One line only: chain steps with && or ;. Output "
        "is capped, and the command is killed if it exceeds the sandbox's command timeout."
    )
    parameters = _object({"cmd": {"type": "string", "description": "The command."}}, ["cmd"])
    parallel_safe = False
    lane = "exec"
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

    async def arun(self, box: SandboxBackend, args: Mapping[str, Any], key: str | None) -> Body:
        """Run the call durably (capped; the key is ``RATH_IDEMPOTENCY_KEY``)."""
        check_command(args["cmd"], limit=MAX_COMMAND_CHARS)
        result = await box.run_command(args["cmd"], idempotency_key=key)
        return backend_result_body(result, durable=True)


class FlowToolFilesRead(SystemTool):
    """``read_workspace_file``."""

    name = "read_workspace_file"
    description = (
        "Read a file in the sandbox workspace. Long files are truncated. Set encoding to "
        "null to read raw bytes (shown as UTF-8 with replacement characters)."
    )
    parameters = _object(
        {
            "path": _PATH,
            "encoding": {
                "type": ["string", "null"],
                "default": "utf-8",
                "description": "Text encoding, or null for raw bytes.",
            },
        },
        ["path"],
    )
    parallel_safe = True
    resource = "fs:read"

    def __call__(self, session: Session, arguments: Mapping[str, Any]) -> Any:
        """Run the call on the session's sandbox; returns the backend's raw result."""
        encoding = arguments.get("encoding", "utf-8")
        encoding = None if encoding is None else str(encoding)
        return flow_tool_files_read(session, str(arguments["path"]), encoding=encoding)

    async def arun(self, box: SandboxBackend, args: Mapping[str, Any], key: str | None) -> Body:
        """Run the call durably."""
        result = await box.read_file(args["path"], encoding=args.get("encoding", "utf-8"))
        return backend_result_body(result, durable=True)


class FlowToolFilesWrite(SystemTool):
    """``write_workspace_file``."""

    name = "write_workspace_file"
    description = (
        "Write text (UTF-8) to a file in the sandbox workspace, creating parent "
        "directories and replacing any existing file."
    )
    parameters = _object(
        {"path": _PATH, "content": {"type": "string", "description": "The file content."}},
        ["path", "content"],
    )
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

    async def arun(self, box: SandboxBackend, args: Mapping[str, Any], key: str | None) -> Body:
        """Run the call durably."""
        result = await box.write_file(args["path"], args["content"])
        return backend_result_body(result, durable=True)


class FlowToolFilesList(SystemTool):
    """``list_workspace_files``."""

    name = "list_workspace_files"
    description = (
        "List a directory in the sandbox workspace (not recursive, sorted by name, at most "
        '500 entries). Use "." for the workspace root.'
    )
    parameters = _object({"path": _PATH}, ["path"])
    parallel_safe = True
    resource = "fs:list"

    def __call__(self, session: Session, arguments: Mapping[str, Any]) -> Any:
        """Run the call on the session's sandbox; returns the backend's raw result."""
        return flow_tool_files_list(session, str(arguments["path"]))

    async def arun(self, box: SandboxBackend, args: Mapping[str, Any], key: str | None) -> Body:
        """Run the call durably."""
        return backend_result_body(await box.list_files(args["path"]), durable=True)


class FlowToolFilesExists(SystemTool):
    """``workspace_path_exists``."""

    name = "workspace_path_exists"
    description = (
        'Check whether a path exists in the sandbox workspace: {"ok": true} if it does, '
        '{"ok": false} if not.'
    )
    parameters = _object({"path": _PATH}, ["path"])
    parallel_safe = True
    resource = "fs:stat"

    def __call__(self, session: Session, arguments: Mapping[str, Any]) -> Any:
        """Run the call on the session's sandbox; returns the backend's raw result."""
        return flow_tool_files_exists(session, str(arguments["path"]))

    async def arun(self, box: SandboxBackend, args: Mapping[str, Any], key: str | None) -> Body:
        """Run the call durably."""
        return {"ok": await box.path_exists(args["path"])}


class FlowToolCodeRun(SystemTool):
    """``run_code``."""

    name = "run_code"
    description = (
        "Run a code snippet in the sandbox with the workspace as working directory and "
        "return stdout, stderr and error. Python is always supported. The run is killed "
        "after timeout seconds (default and maximum: the sandbox's command timeout)."
    )
    parameters = _object(
        {
            "code": {"type": "string", "description": "The source code."},
            "language": {"type": "string", "default": "python"},
            "timeout": {"type": ["number", "null"], "description": "Seconds."},
        },
        ["code"],
    )
    parallel_safe = False
    lane = "code"
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

    async def arun(self, box: SandboxBackend, args: Mapping[str, Any], key: str | None) -> Body:
        """Run the call durably."""
        language, timeout = args.get("language", "python"), args.get("timeout")
        result = await box.run_code(args["code"], language=language, timeout=timeout)
        return backend_result_body(result, durable=True)


BUILTIN_TOOLS: Mapping[str, SystemTool] = MappingProxyType(
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
"""The built-in tools by name (read-only): :func:`global_system_tools`."""


def global_system_tools() -> Mapping[str, SystemTool]:
    """The six built-in tools by name (process-wide instances, read-only)."""
    return BUILTIN_TOOLS


def tool_schemas(names: Iterable[str]) -> list[dict[str, Any]]:
    """OpenAI wire tool dicts for the named built-in tools, sorted by name.

    Raises:
        KeyError: A name is not a built-in tool.
    """
    schemas = []
    for name in sorted(set(names)):
        if name not in BUILTIN_TOOLS:
            raise KeyError(f"unknown built-in tool {name!r}")
        schemas.append(BUILTIN_TOOLS[name].to_schema())
    return schemas


def validate_arguments(name: str, arguments: Mapping[str, Any]) -> str | None:
    """``None`` when ``arguments`` fit the tool's schema, else a short message.

    Raises:
        KeyError: ``name`` is not a built-in tool.
    """
    return check_object(BUILTIN_TOOLS[name].parameters, arguments)


async def run_builtin(
    sandbox: SandboxBackend,
    name: str,
    arguments: Mapping[str, Any],
    *,
    idempotency_key: str | None = None,
) -> ToolOutcome:
    """Validate and run one built-in tool call durably and render its result body.

    Never raises for tool-level problems: bad arguments, sandbox failures and unexpected
    exceptions all become failure bodies with ``ok=False``.
    """
    if name not in BUILTIN_TOOLS:
        return ToolOutcome(error_body("unknown_tool", f"unknown built-in tool {name!r}"), False)
    problem = validate_arguments(name, arguments)
    if problem is not None:
        return ToolOutcome(error_body("invalid_tool_arguments", problem), False)
    try:
        body = await BUILTIN_TOOLS[name].arun(sandbox, arguments, idempotency_key)
    except ToolFailure as failure:
        return ToolOutcome(error_body(failure.kind, failure.message, failure.detail), False)
    except Exception as exc:
        return ToolOutcome(exception_body(exc), False, exc)
    return ToolOutcome(dumps(body), True)
