"""The built-in tools: schemas, argument validation, resource keys and result bodies."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from rath.backend import BackendSandboxSpec
from rath.backend.sandboxes import (
    LocalSandbox,
)
from rath.tools.builtins import (
    BUILTIN_TOOLS,
    ToolOutcome,
    error_body,
    run_builtin,
    tool_schemas,
    validate_arguments,
)

NAMES = {
    "run_shell_command",
    "read_workspace_file",
    "write_workspace_file",
    "list_workspace_files",
    "workspace_path_exists",
    "run_code",
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "sentinel.txt").write_text("outside")
    return ws


@pytest.fixture
def sandbox(workspace: Path) -> LocalSandbox:
    return LocalSandbox(
        BackendSandboxSpec(working_dir=str(workspace), timeout=timedelta(seconds=10))
    )


async def _call(sandbox: LocalSandbox, name: str, **arguments: Any) -> tuple[dict[str, Any], bool]:
    outcome = await run_builtin(sandbox, name, arguments)
    assert isinstance(outcome, ToolOutcome)
    return json.loads(outcome.body), outcome.ok


# --- definitions --------------------------------------------------------------------------


def test_exactly_the_six_openrath_tools() -> None:
    assert set(BUILTIN_TOOLS) == NAMES
    with pytest.raises(TypeError):
        BUILTIN_TOOLS["extra"] = BUILTIN_TOOLS["run_code"]  # type: ignore[index]


def test_schemas_are_closed_objects_with_openrath_arguments() -> None:
    expected = {
        "run_shell_command": ({"cmd"}, {"cmd"}),
        "read_workspace_file": ({"path", "encoding"}, {"path"}),
        "write_workspace_file": ({"path", "content"}, {"path", "content"}),
        "list_workspace_files": ({"path"}, {"path"}),
        "workspace_path_exists": ({"path"}, {"path"}),
        "run_code": ({"code", "language", "timeout"}, {"code"}),
    }
    for name, (properties, required) in expected.items():
        schema = BUILTIN_TOOLS[name].parameters
        assert schema["type"] == "object"
        assert schema["additionalProperties"] is False
        assert set(schema["properties"]) == properties
        assert set(schema["required"]) == required
        assert "workspace" in BUILTIN_TOOLS[name].description
    read_props = BUILTIN_TOOLS["read_workspace_file"].parameters["properties"]
    assert read_props["encoding"] == {
        "type": ["string", "null"],
        "default": "utf-8",
        "description": read_props["encoding"]["description"],
    }
    code_props = BUILTIN_TOOLS["run_code"].parameters["properties"]
    assert code_props["language"]["default"] == "python"
    assert code_props["timeout"]["type"] == ["number", "null"]
    assert "timeout" in BUILTIN_TOOLS["run_shell_command"].description
    assert not BUILTIN_TOOLS["run_shell_command"].parallel_safe
    assert not BUILTIN_TOOLS["run_code"].parallel_safe
    assert BUILTIN_TOOLS["read_workspace_file"].parallel_safe


def test_tool_schemas_are_sorted_wire_dicts() -> None:
    schemas = tool_schemas(["write_workspace_file", "run_code", "list_workspace_files"])
    assert [s["function"]["name"] for s in schemas] == [
        "list_workspace_files",
        "run_code",
        "write_workspace_file",
    ]
    assert all(s["type"] == "function" for s in schemas)
    assert set(schemas[0]["function"]) == {"name", "description", "parameters"}
    schemas[0]["function"]["parameters"]["properties"].clear()  # a copy: definitions unharmed
    assert BUILTIN_TOOLS["list_workspace_files"].parameters["properties"]
    with pytest.raises(KeyError):
        tool_schemas(["run_code", "no_such_tool"])


def test_resource_keys() -> None:
    key = {name: tool.lane_key for name, tool in BUILTIN_TOOLS.items()}
    assert key["run_shell_command"]({"cmd": "ls"}) == ("exec",)
    assert key["run_code"]({"code": "1"}) == ("code",)
    read = key["read_workspace_file"]({"path": "a/b.txt"})
    assert read == ("fs", "a/b.txt")
    assert key["write_workspace_file"]({"path": "./a//b.txt", "content": ""}) == read
    assert key["list_workspace_files"]({"path": "a/"}) == ("fs", "a")
    assert key["workspace_path_exists"]({"path": "a/x/../b.txt"}) == read
    assert key["read_workspace_file"]({}) == ("fs", "<unknown>")
    assert key["write_workspace_file"]({"path": 3}) == ("fs", "<unknown>")


@pytest.mark.parametrize(
    ("name", "arguments", "fragment"),
    [
        ("run_shell_command", {}, "missing required argument 'cmd'"),
        ("run_shell_command", {"cmd": 1}, "'cmd' must be string, got integer"),
        ("run_shell_command", {"cmd": "ls", "cwd": "/"}, "unexpected argument 'cwd'"),
        ("write_workspace_file", {"path": "a"}, "missing required argument 'content'"),
        ("write_workspace_file", {"path": "a", "content": None}, "'content' must be string"),
        ("read_workspace_file", {"path": "a", "encoding": 5}, "'encoding' must be string or null"),
        ("run_code", {"code": "1", "timeout": True}, "'timeout' must be number or null"),
        ("run_code", {"code": "1", "timeout": "5"}, "got string"),
        ("list_workspace_files", ["path"], "arguments must be a JSON object"),
    ],
)
def test_validate_arguments_rejects(name: str, arguments: Any, fragment: str) -> None:
    message = validate_arguments(name, arguments)
    assert message is not None
    assert fragment in message


def test_validate_arguments_accepts() -> None:
    assert validate_arguments("run_shell_command", {"cmd": "ls"}) is None
    assert validate_arguments("read_workspace_file", {"path": "a", "encoding": None}) is None
    assert validate_arguments("run_code", {"code": "1", "timeout": 5}) is None
    assert (
        validate_arguments("run_code", {"code": "1", "timeout": 2.5, "language": "python"}) is None
    )
    with pytest.raises(KeyError):
        validate_arguments("no_such_tool", {})


def test_error_body() -> None:
    assert json.loads(error_body("unknown_tool", "no such tool")) == {
        "ok": False,
        "error_kind": "unknown_tool",
        "message": "no such tool",
    }
    body = json.loads(error_body("timeout", "slow", "TimeoutError"))
    assert body["detail"] == "TimeoutError"
    assert len(json.loads(error_body("x", "m" * 10000))["message"]) <= 2000


# --- run_builtin bodies -------------------------------------------------------------------


async def test_shell_body(sandbox: LocalSandbox) -> None:
    body, ok = await _call(sandbox, "run_shell_command", cmd="echo hi; echo oops >&2; exit 2")
    assert ok
    assert set(body) == {"exit_code", "stdout", "stderr", "elapsed_ms"}
    assert (body["exit_code"], body["stdout"], body["stderr"]) == (2, "hi\n", "oops\n")


async def test_shell_body_flags_truncation(workspace: Path) -> None:
    sb = LocalSandbox(BackendSandboxSpec(working_dir=str(workspace), max_output_bytes=10))
    body, ok = await _call(sb, "run_shell_command", cmd="yes | head -c 1000")
    assert ok
    assert body["truncated"] is True
    assert body["stdout"].startswith("y\ny\ny\ny\ny\n")


async def test_shell_idempotency_key(sandbox: LocalSandbox) -> None:
    arguments = {"cmd": "echo $RATH_IDEMPOTENCY_KEY"}
    outcome = await run_builtin(sandbox, "run_shell_command", arguments, idempotency_key="call-7")
    assert json.loads(outcome.body)["stdout"] == "call-7\n"


async def test_file_tool_bodies(workspace: Path, sandbox: LocalSandbox) -> None:
    body, ok = await _call(sandbox, "write_workspace_file", path="d/note.txt", content="héllo")
    assert (body, ok) == ({"bytes_written": 6}, True)
    outcome = await run_builtin(sandbox, "read_workspace_file", {"path": "d/note.txt"})
    assert outcome.body == '{"data": "héllo"}'  # non-ASCII kept as is
    body, _ = await _call(sandbox, "read_workspace_file", path="d/note.txt", encoding=None)
    assert body == {"data": "héllo"}
    body, _ = await _call(sandbox, "list_workspace_files", path="d")
    assert body == {"entries": [{"name": "note.txt", "path": "d/note.txt", "is_dir": False}]}
    body, ok = await _call(sandbox, "workspace_path_exists", path="d/note.txt")
    assert (body, ok) == ({"ok": True}, True)
    body, ok = await _call(sandbox, "workspace_path_exists", path="d/missing.txt")
    assert (body, ok) == ({"ok": False}, True)


async def test_code_bodies(sandbox: LocalSandbox) -> None:
    body, ok = await _call(sandbox, "run_code", code="print(6 * 7)")
    assert ok
    assert body == {"text": None, "stdout": "42\n", "stderr": "", "error": None}
    body, ok = await _call(sandbox, "run_code", code="1/0", language="python", timeout=5)
    assert ok
    assert "ZeroDivisionError" in body["error"]
    body, ok = await _call(sandbox, "run_code", code="1", language="ruby")
    assert not ok
    assert body["error_kind"] == "unsupported_tool"


async def test_failure_bodies(tmp_path: Path, sandbox: LocalSandbox) -> None:
    body, ok = await _call(sandbox, "read_workspace_file", path="missing.txt")
    assert not ok
    assert body["ok"] is False
    assert body["error_kind"] == "file_not_found"
    assert "missing.txt" in body["message"]
    body, ok = await _call(sandbox, "write_workspace_file", path="../sentinel.txt", content="x")
    assert not ok
    assert body["error_kind"] == "path_outside_workspace"
    assert str(tmp_path) not in json.dumps(body)
    assert (tmp_path / "sentinel.txt").read_text() == "outside"
    body, ok = await _call(sandbox, "run_shell_command", cmd="sleep 1000 &&\necho")
    assert (body["error_kind"], ok) == ("invalid_argument", False)
    body, ok = await _call(sandbox, "run_code", code="import time; time.sleep(100)", timeout=0.5)
    assert (body["error_kind"], ok) == ("timeout", False)


@pytest.mark.parametrize(
    "arguments",
    [{}, {"path": 7}, {"path": "a.txt", "mode": "w"}],
    ids=["missing", "wrong-type", "extra"],
)
async def test_invalid_arguments_body(sandbox: LocalSandbox, arguments: dict[str, Any]) -> None:
    outcome = await run_builtin(sandbox, "read_workspace_file", arguments)
    body = json.loads(outcome.body)
    assert not outcome.ok
    assert set(body) == {"ok", "error_kind", "message"}
    assert (body["ok"], body["error_kind"]) == (False, "invalid_tool_arguments")


async def test_unknown_tool_body(sandbox: LocalSandbox) -> None:
    body, ok = await _call(sandbox, "delete_everything")
    assert (body["error_kind"], ok) == ("unknown_tool", False)


async def test_unexpected_exception_body(sandbox: LocalSandbox) -> None:
    await sandbox.aclose()  # a closed sandbox raises SandboxError, not a ToolFailure
    body, ok = await _call(sandbox, "workspace_path_exists", path="x")
    assert not ok
    assert body["error_kind"] == "tool_execution_exception"
    assert body["message"].startswith("SandboxError: ")
    assert body["detail"] == "SandboxError"
