"""The six built-in tools every agent gets: schemas, resource keys, execution and result bodies.

The names and argument schemas are OpenRath's. A tool call's result is a JSON string (the
TOOL_RESULT body the model reads); expected failures become
``{"ok": false, "error_kind": ..., "message": ...}`` bodies instead of exceptions.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from rath.backend.sandboxes import SandboxBackend, ToolFailure, check_command
from rath.contracts.tools import function_schema
from rath.tools.bodies import (
    code_body,
    command_body,
    dumps,
    entries_body,
    error_body,
    file_body,
    write_body,
)
from rath.tools.schema import check_object

__all__ = [
    "BUILTIN_TOOLS",
    "BuiltinTool",
    "ToolOutcome",
    "error_body",
    "run_builtin",
    "tool_schemas",
    "validate_arguments",
]


@dataclass(frozen=True)
class BuiltinTool:
    """A built-in tool's definition.

    Attributes:
        name: The tool name the model calls.
        description: What the tool does, for the model.
        parameters: The JSON Schema of the arguments (an object, no additional properties).
        parallel_safe: Whether calls may run concurrently with others on different resources.
        lane: ``"exec"``, ``"code"`` or ``"fs"``; file tools are further keyed by path.
    """

    name: str
    description: str
    parameters: Mapping[str, Any] = field(hash=False)
    parallel_safe: bool
    lane: str = "fs"

    def resource_key(self, arguments: Mapping[str, Any]) -> tuple[str, ...]:
        """The resource this call uses; calls with equal keys must not overlap.

        Reads, writes, listings and existence checks of the same (normalised) path share the
        key ``("fs", path)``, so a read never races a write of that path.
        """
        if self.lane != "fs":
            return (self.lane,)
        path = arguments.get("path") if isinstance(arguments, Mapping) else None
        if not isinstance(path, str):
            return ("fs", "<unknown>")
        return ("fs", posixpath.normpath(path) if path else ".")

    def to_schema(self) -> dict[str, Any]:
        """The OpenAI wire tool dict (a deep copy, safe to mutate)."""
        return function_schema(self.name, self.description, self.parameters)


@dataclass(frozen=True)
class ToolOutcome:
    """The result of a built-in tool call.

    Attributes:
        body: The JSON string recorded as the TOOL_RESULT content.
        ok: ``False`` when the call failed (bad arguments, sandbox failure); a command that ran
            with a non-zero exit code is still ``ok``.
        error: The unexpected exception a failed call reported, if any (a caller may act on
            it: a broken sandbox backend is not reused).
    """

    body: str
    ok: bool
    error: BaseException | None = field(default=None, compare=False)


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


_PATH = {"type": "string", "description": "Path relative to the workspace root."}

_TOOLS = (
    BuiltinTool(
        name="run_shell_command",
        description=(
            "Run one shell command (/bin/sh -c) in the sandbox workspace directory and return "
            "its exit code, stdout and stderr. One line only: chain steps with && or ;. Output "
            "is capped, and the command is killed if it exceeds the sandbox's command timeout."
        ),
        parameters=_object({"cmd": {"type": "string", "description": "The command."}}, ["cmd"]),
        parallel_safe=False,
        lane="exec",
    ),
    BuiltinTool(
        name="read_workspace_file",
        description=(
            "Read a file in the sandbox workspace. Long files are truncated. Set encoding to "
            "null to read raw bytes (shown as UTF-8 with replacement characters)."
        ),
        parameters=_object(
            {
                "path": _PATH,
                "encoding": {
                    "type": ["string", "null"],
                    "default": "utf-8",
                    "description": "Text encoding, or null for raw bytes.",
                },
            },
            ["path"],
        ),
        parallel_safe=True,
    ),
    BuiltinTool(
        name="write_workspace_file",
        description=(
            "Write text (UTF-8) to a file in the sandbox workspace, creating parent "
            "directories and replacing any existing file."
        ),
        parameters=_object(
            {"path": _PATH, "content": {"type": "string", "description": "The file content."}},
            ["path", "content"],
        ),
        parallel_safe=True,
    ),
    BuiltinTool(
        name="list_workspace_files",
        description=(
            "List a directory in the sandbox workspace (not recursive, sorted by name, at most "
            '500 entries). Use "." for the workspace root.'
        ),
        parameters=_object({"path": _PATH}, ["path"]),
        parallel_safe=True,
    ),
    BuiltinTool(
        name="workspace_path_exists",
        description=(
            'Check whether a path exists in the sandbox workspace: {"ok": true} if it does, '
            '{"ok": false} if not.'
        ),
        parameters=_object({"path": _PATH}, ["path"]),
        parallel_safe=True,
    ),
    BuiltinTool(
        name="run_code",
        description=(
            "Run a code snippet in the sandbox with the workspace as working directory and "
            "return stdout, stderr and error. Python is always supported. The run is killed "
            "after timeout seconds (default and maximum: the sandbox's command timeout)."
        ),
        parameters=_object(
            {
                "code": {"type": "string", "description": "The source code."},
                "language": {"type": "string", "default": "python"},
                "timeout": {"type": ["number", "null"], "description": "Seconds."},
            },
            ["code"],
        ),
        parallel_safe=False,
        lane="code",
    ),
)

BUILTIN_TOOLS: Mapping[str, BuiltinTool] = MappingProxyType({tool.name: tool for tool in _TOOLS})
"""The built-in tools by name (read-only)."""


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
    """Check a call's arguments against the tool's schema.

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
    """Validate and run one built-in tool call and render its result body.

    Never raises for tool-level problems: bad arguments, sandbox failures and unexpected
    exceptions all become failure bodies with ``ok=False``.
    """
    if name not in BUILTIN_TOOLS:
        return ToolOutcome(error_body("unknown_tool", f"unknown built-in tool {name!r}"), False)
    problem = validate_arguments(name, arguments)
    if problem is not None:
        return ToolOutcome(error_body("invalid_tool_arguments", problem), False)
    try:
        body = await _dispatch(sandbox, name, arguments, idempotency_key)
    except ToolFailure as failure:
        return ToolOutcome(error_body(failure.kind, failure.message, failure.detail), False)
    except Exception as exc:
        kind = type(exc).__name__
        body_text = error_body("tool_execution_exception", f"{kind}: {exc}", kind)
        return ToolOutcome(body_text, False, exc)
    return ToolOutcome(dumps(body), True)


MAX_MODEL_COMMAND_CHARS = 2048
"""OpenRath's limit on a model's ``run_shell_command`` line (sandboxes take longer ones)."""


async def _dispatch(
    sandbox: SandboxBackend,
    name: str,
    args: Mapping[str, Any],
    idempotency_key: str | None,
) -> dict[str, Any]:
    if name == "run_shell_command":
        check_command(args["cmd"], limit=MAX_MODEL_COMMAND_CHARS)
        return command_body(await sandbox.run_command(args["cmd"], idempotency_key=idempotency_key))
    if name == "read_workspace_file":
        content = await sandbox.read_file(args["path"], encoding=args.get("encoding", "utf-8"))
        return file_body(content)
    if name == "write_workspace_file":
        written = await sandbox.write_file(args["path"], args["content"])
        return write_body(written)
    if name == "list_workspace_files":
        return entries_body(await sandbox.list_files(args["path"]))
    if name == "workspace_path_exists":
        return {"ok": await sandbox.path_exists(args["path"])}
    code = await sandbox.run_code(
        args["code"], language=args.get("language", "python"), timeout=args.get("timeout")
    )
    return code_body(code)
