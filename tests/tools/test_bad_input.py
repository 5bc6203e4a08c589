"""Bad tool input: each case is a structured tool error (or a capped result) for the model,
the loop goes on, and nothing outside the workspace is touched. Run on ``local`` and ``bwrap``.
"""

from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from support import FAST, fake_provider, tool_bodies

from rath import flow
from rath.backend import BackendSandboxSpec
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply, tool_call_reply

CASES: dict[str, tuple[str, dict[str, Any] | str]] = {
    "invalid_json": ("read_workspace_file", "{not json"),
    "missing_argument": ("read_workspace_file", {}),
    "unknown_tool": ("no_such_tool", {}),
    "dotdot_path": ("write_workspace_file", {"path": "../escape.txt", "content": "x"}),
    "absolute_path": ("write_workspace_file", {"path": "OUTSIDE/escape.txt", "content": "x"}),
    "symlink_escape": ("write_workspace_file", {"path": "link/escape.txt", "content": "x"}),
    "ten_mb_output": ("run_shell_command", {"cmd": "yes | head -c 10000000"}),
    "hanging_command": ("run_shell_command", {"cmd": "sleep 600"}),
    "binary_output": ("run_shell_command", {"cmd": "head -c 4096 /dev/urandom"}),
    "non_utf8_output": ("run_shell_command", {"cmd": r"printf 'caf\351 \377\n'"}),
}
BACKENDS = ["local", "bwrap"]


def check(case: str, body: dict[str, Any]) -> None:
    """The expected outcome of each case (what the model reads)."""
    errors = {
        "invalid_json": "invalid_tool_arguments",
        "missing_argument": "invalid_tool_arguments",
        "unknown_tool": "unknown_tool",
        "dotdot_path": "path_outside_workspace",
        "absolute_path": "path_outside_workspace",
        "symlink_escape": "path_outside_workspace",
        "hanging_command": "timeout",
    }
    if case in errors:
        assert body["ok"] is False and body["error_kind"] == errors[case], body
    elif case == "ten_mb_output":
        assert body["truncated"] is True and len(body["stdout"]) < 70_000
    elif case == "binary_output":
        assert body["exit_code"] == 0 and isinstance(body["stdout"], str)
    else:
        assert body["stdout"].startswith("caf\ufffd \ufffd")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_is_a_tool_error_and_the_loop_goes_on(
    rath_env: Settings, tmp_path: Path, backend: str, case: str
) -> None:
    if backend == "bwrap" and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed: run `sudo bash infra/system-deps.sh`")
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (workspace / "link").symlink_to(outside)
    name, arguments = CASES[case]
    if isinstance(arguments, dict) and "path" in arguments:
        arguments = {**arguments, "path": arguments["path"].replace("OUTSIDE", str(outside))}
    spec = BackendSandboxSpec(
        backend=backend, working_dir=str(workspace), timeout=timedelta(seconds=1.5)
    )
    with FakeChatServer([tool_call_reply((name, arguments)), text_reply("ok")]) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=FAST)
        out = agent(Session.from_user_message("go").to(backend, spec=spec))
        (body,) = tool_bodies(out)
        assert out.chunk_table.rows[-1].payload["content"] == "ok"  # the loop went on
    check(case, body)
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "escape.txt").exists()
