"""OpenRath inventory section 2: the six built-in tools and how their results reach the model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support import FAST, fake_provider, tool_bodies

from rath import flow
from rath.flow.tool import global_system_tools
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply, tool_call_reply

BUILTINS = {
    "run_shell_command": ("exec",),
    "read_workspace_file": ("fs:read", "a.txt"),
    "write_workspace_file": ("fs:write", "a.txt"),
    "list_workspace_files": ("fs:list", "a.txt"),
    "workspace_path_exists": ("fs:stat", "a.txt"),
    "run_code": ("code",),
}


def test_the_six_tools_with_their_lanes() -> None:
    tools = global_system_tools()
    assert set(tools) == set(BUILTINS)
    for name, key in BUILTINS.items():
        assert tools[name].resource_key({"path": "a.txt"}) == key
        assert tools[name].parameters["additionalProperties"] is False
    assert tools["read_workspace_file"].resource_key({}) == ("fs:read", "<unknown>")
    assert (
        not tools["run_shell_command"].parallel_safe and tools["read_workspace_file"].parallel_safe
    )


def run(calls: list[tuple[str, dict[str, Any]]], workspace: Path) -> list[Any]:
    script = [tool_call_reply(call) for call in calls] + [text_reply("done")]
    with FakeChatServer(script) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=FAST)
        out = agent(Session.from_user_message("go").to("local", spec=workspace))
        return tool_bodies(out)


def test_result_bodies_have_openraths_shapes(rath_env: Settings, tmp_path: Path) -> None:
    bodies = run(
        [
            ("write_workspace_file", {"path": "a.txt", "content": "hello"}),
            ("read_workspace_file", {"path": "a.txt"}),
            ("list_workspace_files", {"path": "."}),
            ("workspace_path_exists", {"path": "a.txt"}),
            ("run_shell_command", {"cmd": "echo hi"}),
            ("run_code", {"code": "print(1)"}),
        ],
        tmp_path / "ws",
    )
    assert bodies[0] == {"bytes_written": 5}
    assert bodies[1] == {"data": "hello"}
    # Listed paths are workspace-relative (docs/openrath.md: no host paths reach the model).
    assert bodies[2] == {"entries": [{"name": "a.txt", "path": "a.txt", "is_dir": False}]}
    assert bodies[3] == {"ok": True}
    assert {k: bodies[4][k] for k in ("exit_code", "stdout", "stderr")} == {
        "exit_code": 0,
        "stdout": "hi\n",
        "stderr": "",
    }
    assert isinstance(bodies[4]["elapsed_ms"], float)
    assert bodies[5] == {"text": None, "stdout": "1\n", "stderr": "", "error": None}


def test_failures_reach_the_model_as_ok_false_bodies(rath_env: Settings, tmp_path: Path) -> None:
    bodies = run(
        [
            ("read_workspace_file", {"path": "missing.txt"}),
            ("no_such_tool", {}),
            ("run_shell_command", {"cmd": "echo a\necho b"}),
            ("run_shell_command", {"cmd": "x" * 2049}),
        ],
        tmp_path / "ws",
    )
    assert all(body["ok"] is False for body in bodies)
    assert [body["error_kind"] for body in bodies[:2]] == ["file_not_found", "unknown_tool"]
    assert "multiline commands are rejected" in bodies[2]["message"]
    assert "too long (2049 characters, limit 2048)" in bodies[3]["message"]
    assert str(tmp_path) not in str(bodies)
