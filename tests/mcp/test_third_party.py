"""Real third-party MCP servers over stdio, through a worker: ``mcp-server-time`` and
``mcp-server-git`` (both installed by the ``dev`` extra, both offline)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from rath.tools.mcp import mcp_tools_from_config, mcp_tools_from_server


def installed(command: str) -> str:
    """The server's executable, next to this interpreter (the venv) or on PATH."""
    beside = Path(sys.executable).with_name(command)
    found = str(beside) if beside.exists() else shutil.which(command)
    assert found, f"{command} is missing: bash infra/setup.sh installs it (dev extra)"
    return found


async def test_mcp_server_time(harness) -> None:
    (tools,) = mcp_tools_from_config(
        {"mcpServers": {"time": {"command": installed("mcp-server-time")}}},
        prefix_server_names=True,
    )
    listed = await harness.list_tools(tools.server)
    bindings = {b.name: b for b in tools.bind(listed)}
    assert set(bindings) == {"time_get_current_time", "time_convert_time"}
    assert "timezone" in bindings["time_get_current_time"].parameters["properties"]
    done, body = await harness.call(
        tools.server,
        "get_current_time",
        {"timezone": "Europe/Paris"},
        model_name="time_get_current_time",
    )
    assert done.ok
    answer = json.loads(body["text"])
    assert answer["timezone"] == "Europe/Paris"
    assert answer["datetime"][-6:] in ("+01:00", "+02:00")
    # The server's own error for a bad time zone is a tool error for the model.
    done, body = await harness.call(tools.server, "get_current_time", {"timezone": "Nowhere/Land"})
    assert not done.ok and body["error_kind"] == "mcp_tool_error"
    assert "Nowhere/Land" in body["message"]


async def test_mcp_server_git(harness, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "notes.txt").write_text("hello\n")
    tools = mcp_tools_from_server(
        installed("mcp-server-git"), args=["--repository", str(repo)], name="git"
    )
    listed = await harness.list_tools(tools.server)
    names = {tool.name for tool in listed.tools}
    assert {"git_status", "git_log", "git_diff", "git_commit", "git_add"} <= names
    done, body = await harness.call(tools.server, "git_status", {"repo_path": str(repo)})
    assert done.ok
    assert "notes.txt" in body["text"] and "Untracked" in body["text"]
