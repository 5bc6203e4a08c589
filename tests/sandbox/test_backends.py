"""One behavioural suite for every backend: files, commands, code, confinement, output, env."""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from sandbox.backends import ISOLATION, Backend

from rath.backend.sandboxes import (
    SandboxBackend,
    ToolFailure,
    open_sandbox,
)
from rath.errors import SandboxError
from rath.tools.builtins import run_builtin

SENTINEL = "do not touch"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "sentinel.txt").write_text(SENTINEL)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret")
    return ws


@pytest.fixture
async def sandbox(backend: Backend, workspace: Path) -> AsyncIterator[SandboxBackend]:
    async with open_sandbox(backend.spec(workspace, timeout=timedelta(seconds=20))) as sb:
        yield sb


def _assert_outside_untouched(tmp_path: Path) -> None:
    assert (tmp_path / "sentinel.txt").read_text() == SENTINEL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["outside", "sentinel.txt", "ws"]
    assert sorted(p.name for p in (tmp_path / "outside").iterdir()) == ["secret.txt"]


def _add_escape_links(tmp_path: Path, workspace: Path) -> None:
    (workspace / "link_dir").symlink_to(tmp_path / "outside", target_is_directory=True)
    (workspace / "link_file").symlink_to(tmp_path / "sentinel.txt")
    (workspace / "dangling").symlink_to(tmp_path / "outside" / "new.txt")


async def test_open_sandbox_picks_the_backend(backend: Backend, sandbox: SandboxBackend) -> None:
    assert sandbox.name == backend.name
    assert sandbox.capabilities.isolation == ISOLATION[backend.name]
    assert sandbox.capabilities.supports_command and sandbox.capabilities.supports_code


async def test_files_are_shared_by_tools_commands_and_the_host(
    workspace: Path, sandbox: SandboxBackend
) -> None:
    assert (await sandbox.write_file("dir/a.txt", "from the tool\n")).bytes_written == 14
    result = await sandbox.run_command("cat dir/a.txt && echo from the command > b.txt && mkdir c")
    assert (result.exit_code, result.stdout) == (0, "from the tool\n")
    assert (await sandbox.read_file("b.txt")).data == "from the command\n"
    assert (workspace / "b.txt").read_text() == "from the command\n"
    listing = await sandbox.list_files(".")
    assert [(e.name, e.is_dir) for e in listing.entries] == [
        ("b.txt", False),
        ("c", True),
        ("dir", True),
    ]
    assert await sandbox.path_exists("c")
    assert not await sandbox.path_exists("missing")


async def test_the_workspace_path_commands_see_works_for_the_file_tools(
    backend: Backend, workspace: Path, sandbox: SandboxBackend
) -> None:
    """``pwd`` says /workspace in bwrap and docker: a model naming /workspace/x means x."""
    inside = backend.inside(workspace)
    assert (await sandbox.run_command("pwd")).stdout == f"{inside}\n"
    await sandbox.write_file(f"{inside}/notes/a.txt", "hi")
    assert (workspace / "notes" / "a.txt").read_text() == "hi"
    assert (await sandbox.read_file(f"{inside}/notes/a.txt")).data == "hi"
    assert await sandbox.path_exists(f"{inside}/notes")
    listing = await sandbox.list_files(inside)
    assert [e.path for e in listing.entries] == ["notes"]
    with pytest.raises(ToolFailure) as info:
        await sandbox.read_file(f"{inside}/../etc/passwd")
    assert info.value.kind == "path_outside_workspace"


async def test_run_command_basics(
    backend: Backend, workspace: Path, sandbox: SandboxBackend
) -> None:
    result = await sandbox.run_command("pwd; echo out; echo err >&2; exit 3")
    assert result.exit_code == 3
    assert result.stdout == f"{backend.inside(workspace)}\nout\n"
    assert result.stderr == "err\n"
    assert result.elapsed_ms > 0
    assert (await sandbox.run_command("cat; echo done")).stdout == "done\n"  # empty stdin


async def test_run_code(backend: Backend, workspace: Path, sandbox: SandboxBackend) -> None:
    ok = await sandbox.run_code("import os, sys\nprint(os.getcwd())\nprint(sys.flags.isolated)")
    assert (ok.exit_code, ok.stdout, ok.error) == (0, f"{backend.inside(workspace)}\n1\n", None)
    assert os.listdir(workspace) == []  # the snippet is not written into the workspace
    bad = await sandbox.run_code("print('before')\nraise ValueError('bad value')")
    assert (bad.exit_code, bad.stdout) == (1, "before\n")
    assert bad.error is not None and "ValueError: bad value" in bad.error
    assert bad.error == bad.stderr
    with pytest.raises(ToolFailure) as info:
        await sandbox.run_code("console.log(1)", language="javascript")
    assert info.value.kind == "unsupported_tool"


@pytest.mark.parametrize("operation", ["read", "write", "list", "exists"])
async def test_file_primitives_refuse_paths_outside(
    tmp_path: Path, workspace: Path, sandbox: SandboxBackend, operation: str
) -> None:
    _add_escape_links(tmp_path, workspace)
    paths = ["../sentinel.txt", "a/../../sentinel.txt", "..", str(tmp_path / "sentinel.txt")]
    for path in [*paths, "/etc", "link_dir/secret.txt", "link_dir", "link_file", "dangling"]:
        with pytest.raises(ToolFailure) as info:
            if operation == "read":
                await sandbox.read_file(path)
            elif operation == "write":
                await sandbox.write_file(path, "overwritten")
            elif operation == "list":
                await sandbox.list_files(path)
            else:
                await sandbox.path_exists(path)
        assert info.value.kind == "path_outside_workspace", path
        assert str(tmp_path) not in info.value.message
    _assert_outside_untouched(tmp_path)


async def test_commands_cannot_write_outside_the_workspace(
    backend: Backend, tmp_path: Path, workspace: Path, sandbox: SandboxBackend
) -> None:
    if not backend.isolating:
        pytest.skip("the local backend confines file tools only, not commands")
    _add_escape_links(tmp_path, workspace)
    for cmd in [
        f"echo pwned > {tmp_path / 'sentinel.txt'}",
        "echo pwned > ../escape.txt",
        "echo pwned > link_file",
        "echo pwned > link_dir/new.txt",
        "touch /etc/rath-escape",
    ]:
        result = await sandbox.run_command(cmd)
        assert result.exit_code != 0, cmd
    _assert_outside_untouched(tmp_path)
    assert not os.path.exists("/etc/rath-escape")


async def test_timeout_kills_the_command_and_its_children(
    workspace: Path, sandbox: SandboxBackend
) -> None:
    started = time.monotonic()
    with pytest.raises(ToolFailure) as info:
        await sandbox.run_command(
            "sh -c 'while :; do echo . >> ticks; sleep 0.1; done' & sleep 1000", timeout=1.5
        )
    assert info.value.kind == "timeout"
    assert time.monotonic() - started < 8
    size = (workspace / "ticks").stat().st_size
    time.sleep(0.6)
    assert (workspace / "ticks").stat().st_size == size  # the background loop is dead too
    with pytest.raises(ToolFailure) as info:
        await sandbox.run_code("while True:\n    pass", timeout=0.5)
    assert info.value.kind == "timeout"


async def test_background_child_holding_output_does_not_stall(
    backend: Backend, sandbox: SandboxBackend
) -> None:
    started = time.monotonic()
    result = await sandbox.run_command("echo started; sleep 1000 &")
    assert time.monotonic() - started < 5
    assert (result.exit_code, result.stdout) == (0, "started\n")
    if backend.name != "bwrap":  # bwrap's PID namespace ends with the command: nothing lingers
        assert "background processes" in result.stderr


async def test_huge_output_is_capped(sandbox: SandboxBackend) -> None:
    result = await sandbox.run_command("yes | head -c 10000000")
    assert result.truncated
    assert result.exit_code == 0
    assert result.stdout.startswith("y\ny\n")
    assert result.stdout.endswith(f"...(truncated {10000000 - 65536} bytes)")
    assert len(result.stdout.encode()) < 65536 + 100


async def test_binary_and_non_utf8_output(sandbox: SandboxBackend) -> None:
    result = await sandbox.run_command(r"printf 'caf\351 \377\376\n'; head -c 4096 /dev/urandom")
    assert result.stdout.startswith("caf\ufffd \ufffd\ufffd\n")
    assert result.exit_code == 0


async def test_environment_is_scrubbed(
    backend: Backend, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
    monkeypatch.setenv("SOME_WORKER_SETTING", "worker-only")
    spec = backend.spec(workspace, env={"FROM_SPEC": "spec-value"})
    async with open_sandbox(spec) as sb:
        result = await sb.run_command("env", env={"FROM_CALL": "c"}, idempotency_key="k-1")
        code = await sb.run_code("import os; print(sorted(os.environ))")
    assert "sk-test-not-real" not in result.stdout
    assert "OPENAI_API_KEY" not in result.stdout + code.stdout
    assert "worker-only" not in result.stdout
    lines = set(result.stdout.splitlines())
    assert f"HOME={backend.inside(workspace)}" in lines
    assert {"FROM_SPEC=spec-value", "FROM_CALL=c", "RATH_IDEMPOTENCY_KEY=k-1"} <= lines
    assert any(line.startswith("PATH=") for line in lines)


async def test_builtin_tools_run_through_the_backend(
    backend: Backend, workspace: Path, sandbox: SandboxBackend
) -> None:
    async def call(name: str, **arguments: object) -> dict[str, object]:
        outcome = await run_builtin(sandbox, name, arguments, idempotency_key="wf/run/1")
        body: dict[str, object] = json.loads(outcome.body)
        return body

    assert (await call("write_workspace_file", path="n.txt", content="hi\n")) == {
        "bytes_written": 3
    }
    shell = await call("run_shell_command", cmd="cat n.txt; echo $RATH_IDEMPOTENCY_KEY; pwd")
    assert shell["stdout"] == f"hi\nwf/run/1\n{backend.inside(workspace)}\n"
    code = await call("run_code", code="print(open('n.txt').read().strip())")
    assert code["stdout"] == "hi\n"
    escape = await call("read_workspace_file", path="../sentinel.txt")
    assert escape["error_kind"] == "path_outside_workspace"


async def test_closed_sandbox_refuses_work(backend: Backend, workspace: Path) -> None:
    sandbox = open_sandbox(backend.spec(workspace))
    await sandbox.run_command("true")  # opened lazily, without ``async with``
    await sandbox.aclose()
    await sandbox.aclose()  # idempotent
    with pytest.raises(SandboxError, match="closed"):
        await sandbox.run_command("true")
