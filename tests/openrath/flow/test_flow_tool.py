"""rath.flow.tool: OpenRath's built-in tool classes, helpers and merging, on a local sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from rath.backend import CommandResult, FileContent, FileEntries, FileWriteResult
from rath.errors import ConfigError
from rath.flow.tool import (
    FlowToolCall,
    FlowToolCommandRun,
    FlowToolFilesRead,
    FlowToolFilesWrite,
    ToolNameConflictError,
    flow_tool_code_run,
    flow_tool_command_run,
    flow_tool_files_exists,
    flow_tool_files_list,
    flow_tool_files_read,
    flow_tool_files_write,
    global_system_tools,
    merge_tools_for_loop,
    tools_dict_to_schemas,
)
from rath.llm import RathLLMFunctionTool
from rath.session import Session
from rath.tools import BUILTIN_TOOLS, tool


@tool
def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


def test_the_built_ins_are_process_wide_and_match_the_agents_tools() -> None:
    tools = global_system_tools()
    assert set(tools) == set(BUILTIN_TOOLS) and global_system_tools() is tools
    with pytest.raises(TypeError):
        tools["x"] = tools["run_code"]  # type: ignore[index]
    read = tools["read_workspace_file"]
    assert isinstance(read, FlowToolFilesRead) and isinstance(read, FlowToolCall)
    assert read.parallel_safe and read.resource_key({"path": "a.txt"}) == ("fs:read", "a.txt")
    assert read.resource_key({}) == ("fs:read", "<unknown>")
    assert tools["run_shell_command"].resource_key({}) == ("exec",)
    assert read.parameters == BUILTIN_TOOLS["read_workspace_file"].parameters


def test_merging_refuses_a_shadowing_or_duplicate_tool() -> None:
    merged = merge_tools_for_loop([shout])
    assert set(merged) == {*BUILTIN_TOOLS, "shout"}
    with pytest.raises(ToolNameConflictError, match="user tool 'shout' shadows") as info:
        merge_tools_for_loop([shout, shout])
    assert isinstance(info.value, ValueError)
    schemas = tools_dict_to_schemas(merged)
    assert [s.name for s in schemas] == sorted(merged)
    shouted = next(s for s in schemas if s.name == "shout")
    assert isinstance(shouted, RathLLMFunctionTool) and shouted.description == "Upper-case a text."


def test_helpers_and_classes_act_on_the_sessions_workspace(tmp_path: Path) -> None:
    session = Session.from_user_message("hi").to("local", spec=tmp_path / "ws")
    assert flow_tool_files_write(session, "a.txt", "hello") == FileWriteResult(5)
    assert flow_tool_files_read(session, "a.txt") == FileContent("hello")
    assert flow_tool_files_exists(session, "a.txt") is True
    listing = flow_tool_files_list(session, ".")
    assert isinstance(listing, FileEntries) and [e.name for e in listing.entries] == ["a.txt"]
    ran = flow_tool_command_run(session, "cat a.txt")
    assert isinstance(ran, CommandResult) and ran.stdout == b"hello"
    assert flow_tool_code_run(session, "print(1 + 1)").stdout.strip() == b"2"
    FlowToolFilesWrite()(session, {"path": "b.txt", "content": "x"})
    assert (tmp_path / "ws" / "b.txt").read_text() == "x"
    with pytest.raises(TypeError):
        FlowToolFilesWrite()(session, {"path": "b.txt", "content": 3})
    with pytest.raises(ValueError, match="multiline"):
        FlowToolCommandRun()(session, {"cmd": "echo a\necho b"})


def test_a_session_without_a_sandbox_is_refused() -> None:
    with pytest.raises(ConfigError, match=r'session\.to\("local"\)') as info:
        flow_tool_files_exists(Session.from_user_message("hi"), "x")
    assert isinstance(info.value, RuntimeError)
