"""OpenRath's built-in tool classes, their process-wide instances, and merging user tools.

The classes carry the same names, descriptions and schemas as the tools Rath's agents offer
(:data:`rath.tools.BUILTIN_TOOLS`); called directly they act on the session's sandbox through
:mod:`rath.flow.tool.system_tool`.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar

from rath.errors import ToolNameConflictError
from rath.flow.tool import system_tool
from rath.llm.function_tool import RathLLMFunctionTool
from rath.session import Session
from rath.tools import BUILTIN_TOOLS, FlowToolCall


class _SystemTool(FlowToolCall):
    """A built-in tool as a ``FlowToolCall`` (its definition comes from Rath's built-ins)."""

    tool_name: ClassVar[str]
    resource: ClassVar[str]
    """The first part of the resource key; file tools add the path."""

    def __init__(self) -> None:
        built = BUILTIN_TOOLS[self.tool_name]
        self.name = built.name
        self.description = built.description
        self.parameters = built.parameters
        self.parallel_safe = built.parallel_safe

    def resource_key(self, arguments: Mapping[str, Any]) -> tuple[str, ...]:
        """OpenRath's keys: ``("exec",)``, ``("code",)`` or ``("fs:<op>", path)``."""
        if not self.resource.startswith("fs:"):
            return (self.resource,)
        path = arguments.get("path") if isinstance(arguments, Mapping) else None
        return (self.resource, path if isinstance(path, str) else "<unknown>")


class FlowToolCommandRun(_SystemTool):
    """``run_shell_command``."""

    tool_name = "run_shell_command"
    resource = "exec"

    def __call__(self, session: Session, arguments: Mapping[str, Any]) -> Any:
        """Run the call on the session's sandbox; returns the backend's raw result."""
        cmd = arguments["cmd"]
        if "\n" in cmd or "\r" in cmd:
            raise ValueError("multiline commands are rejected")
        if len(cmd) > 2048:
            raise ValueError("command too long")
        return system_tool.flow_tool_command_run(session, cmd)


class FlowToolFilesRead(_SystemTool):
    """``read_workspace_file``."""

    tool_name = "read_workspace_file"
    resource = "fs:read"

    def __call__(self, session: Session, arguments: Mapping[str, Any]) -> Any:
        """Run the call on the session's sandbox; returns the backend's raw result."""
        encoding = arguments.get("encoding", "utf-8")
        return system_tool.flow_tool_files_read(session, arguments["path"], encoding=encoding)


class FlowToolFilesWrite(_SystemTool):
    """``write_workspace_file``."""

    tool_name = "write_workspace_file"
    resource = "fs:write"

    def __call__(self, session: Session, arguments: Mapping[str, Any]) -> Any:
        """Run the call on the session's sandbox; returns the backend's raw result."""
        content = arguments["content"]
        if not isinstance(content, str):
            raise TypeError(f"content must be a string, not {type(content).__name__}")
        return system_tool.flow_tool_files_write(session, arguments["path"], content)


class FlowToolFilesList(_SystemTool):
    """``list_workspace_files``."""

    tool_name = "list_workspace_files"
    resource = "fs:list"

    def __call__(self, session: Session, arguments: Mapping[str, Any]) -> Any:
        """Run the call on the session's sandbox; returns the backend's raw result."""
        return system_tool.flow_tool_files_list(session, arguments["path"])


class FlowToolFilesExists(_SystemTool):
    """``workspace_path_exists``."""

    tool_name = "workspace_path_exists"
    resource = "fs:stat"

    def __call__(self, session: Session, arguments: Mapping[str, Any]) -> Any:
        """Run the call on the session's sandbox; returns the backend's raw result."""
        return system_tool.flow_tool_files_exists(session, arguments["path"])


class FlowToolCodeRun(_SystemTool):
    """``run_code``."""

    tool_name = "run_code"
    resource = "code"

    def __call__(self, session: Session, arguments: Mapping[str, Any]) -> Any:
        """Run the call on the session's sandbox; returns the backend's raw result."""
        return system_tool.flow_tool_code_run(
            session,
            arguments["code"],
            language=arguments.get("language", "python"),
            timeout=arguments.get("timeout"),
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


def merge_tools_for_loop(user_tools: list[FlowToolCall] | None) -> dict[str, FlowToolCall]:
    """The built-ins plus ``user_tools``, by name.

    Raises:
        ToolNameConflictError: A user tool reuses a built-in's or another user tool's name
            (a ``ValueError``).
    """
    table: dict[str, FlowToolCall] = dict(_SYSTEM_TOOLS)
    for tool in user_tools or ():
        if tool.name in table:
            raise ToolNameConflictError(f"user tool {tool.name!r} shadows a built-in system tool")
        table[tool.name] = tool
    return table


def tools_dict_to_schemas(table: Mapping[str, FlowToolCall]) -> tuple[RathLLMFunctionTool, ...]:
    """The tools' function schemas, sorted by name."""
    return tuple(
        RathLLMFunctionTool(
            name=name, parameters=dict(tool.parameters), description=tool.description
        )
        for name, tool in sorted(table.items())
    )
