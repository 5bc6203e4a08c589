"""The ``opensandbox`` backend against a real ``opensandbox-server`` on a private Docker daemon.

The in-sandbox agent is a stand-in written from OpenSandbox's published execd API (see
``tests/sandbox/opensandbox_env.py``): ``opensandbox/execd`` cannot be pulled offline.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import docker
import pytest
from example_runs import run_example
from sandbox.opensandbox_env import OpenSandboxServer, opensandbox_server
from support import FAST, fake_provider, tool_bodies

import rath.backend as plane
from rath import flow
from rath.backend import (
    BackendSandboxSpec,
    BackendToolCodeRun,
    BackendToolCommandRun,
    BackendToolFilesExists,
    BackendToolFilesList,
    BackendToolFilesRead,
    BackendToolFilesWrite,
    CommandResult,
    FileContent,
    FileEntries,
)
from rath.backend.persistence import PersistentSandboxRegistry
from rath.backend.sandboxes import (
    OpenSandboxSandbox,
    SandboxUnavailableError,
    ToolFailure,
    open_sandbox,
)
from rath.backend.sandboxes.opensandbox import ID_FILE
from rath.flow.tool import flow_tool_files_write
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply, tool_call_reply

__all__ = ["opensandbox_server"]


def sandboxes(docker_host: str) -> list[str]:
    client = docker.DockerClient(base_url=docker_host)
    try:
        found = client.containers.list(filters={"label": "opensandbox.io/id"})
        return [c.labels["opensandbox.io/id"] for c in found]
    finally:
        client.close()


@pytest.fixture
def spec(
    tmp_path: Path, opensandbox_server: OpenSandboxServer, docker_host: str
) -> Iterator[BackendSandboxSpec]:
    """An opensandbox spec; afterwards no sandbox of the test may be left running."""
    before = set(sandboxes(docker_host))
    yield BackendSandboxSpec(
        backend="opensandbox", working_dir=str(tmp_path), image=opensandbox_server.image
    )
    assert set(sandboxes(docker_host)) <= before


async def test_commands_files_and_code_run_in_the_sandbox(spec: BackendSandboxSpec) -> None:
    async with open_sandbox(spec) as box:
        assert isinstance(box, OpenSandboxSandbox) and box.remote_id
        done = await box.run_command("echo hi; echo oops >&2; pwd; exit 3", env={"X": "1"})
        assert (done.exit_code, done.stdout, done.stderr) == (3, "hi\n/workspace\n", "oops\n")
        assert (await box.run_command("echo $X", env={"X": "seen"})).stdout == "seen\n"
        fed = await box.run_command("cat", stdin=b"from stdin")
        assert fed.stdout == "from stdin"
        assert (await box.write_file("notes/a.txt", "hello")).bytes_written == 5
        assert (await box.read_file("notes/a.txt")).data == "hello"
        assert (await box.run_command("cat notes/a.txt")).stdout == "hello"
        listing = await box.list_files("notes")
        assert [(e.name, e.path, e.is_dir) for e in listing.entries] == [
            ("a.txt", "notes/a.txt", False)
        ]
        assert await box.path_exists("notes/a.txt")
        assert not await box.path_exists("notes/missing.txt")
        ran = await box.run_code("import os; print(os.getcwd()); raise SystemExit(2)")
        assert (ran.exit_code, ran.stdout) == (2, "/workspace\n")


async def test_bad_paths_timeouts_and_missing_files_are_tool_failures(
    spec: BackendSandboxSpec,
) -> None:
    async with open_sandbox(dataclasses.replace(spec, timeout=timedelta(seconds=2))) as box:
        with pytest.raises(ToolFailure) as outside:
            await box.read_file("../etc/passwd")
        assert outside.value.kind == "path_outside_workspace"
        with pytest.raises(ToolFailure) as missing:
            await box.read_file("nope.txt")
        assert missing.value.kind == "file_not_found"
        with pytest.raises(ToolFailure) as slow:
            await box.run_command("sleep 30")
        assert slow.value.kind == "timeout"
        with pytest.raises(ToolFailure) as language:
            await box.run_code("puts 1", language="ruby")
        assert language.value.kind == "unsupported_tool"


async def test_a_restarted_worker_reattaches_to_the_same_sandbox(
    spec: BackendSandboxSpec, docker_host: str
) -> None:
    first = open_sandbox(spec)
    await first.__aenter__()
    await first.write_file("kept.txt", "still here")
    remote = first.remote_id
    assert (Path(str(spec.working_dir)) / ID_FILE).read_text() == remote
    # A new process (a restarted worker) opens the same spec: the same remote sandbox.
    async with open_sandbox(spec) as again:
        assert again.remote_id == remote
        assert (await again.read_file("kept.txt")).data == "still here"
    assert remote not in sandboxes(docker_host)
    assert not (Path(str(spec.working_dir)) / ID_FILE).exists()


def test_without_a_server_named_it_is_unavailable_with_the_fix(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("OPEN_SANDBOX_DOMAIN", raising=False)
    monkeypatch.delenv("OPENSANDBOX_DOMAIN", raising=False)
    reason = OpenSandboxSandbox.unavailable_reason()
    assert reason is not None and "OPEN_SANDBOX_DOMAIN" in reason
    assert not plane.is_available("opensandbox")

    async def use() -> None:
        async with open_sandbox(
            BackendSandboxSpec(backend="opensandbox", working_dir=str(tmp_path))
        ):
            pass

    with pytest.raises(SandboxUnavailableError, match="OPEN_SANDBOX_DOMAIN"):
        asyncio.run(use())


def test_the_backend_plane_and_attach(
    opensandbox_server: OpenSandboxServer, docker_host: str, tmp_path: Path
) -> None:
    backend = plane.get("opensandbox")
    assert plane.is_available("opensandbox")
    spec = BackendSandboxSpec(image=opensandbox_server.image)
    with backend.open(spec) as sandbox:
        wrote = sandbox.dispatch(BackendToolFilesWrite(path="a.txt", data="plane"))
        assert wrote.bytes_written == 5  # type: ignore[union-attr]
        read = sandbox.dispatch(BackendToolFilesRead(path="a.txt"))
        assert read == FileContent("plane")
        ran = sandbox.dispatch(BackendToolCommandRun(cmd=["cat", "a.txt"]))
        assert isinstance(ran, CommandResult) and ran.stdout == b"plane"
        listed = sandbox.dispatch(BackendToolFilesList(path="."))
        assert isinstance(listed, FileEntries)
        assert [e.path for e in listed.entries] == ["/workspace/a.txt"]
        assert sandbox.dispatch(BackendToolFilesExists(path="a.txt")) is True
        code = sandbox.dispatch(BackendToolCodeRun(code="print(6 * 7)"))
        assert code.stdout == b"42\n"  # type: ignore[union-attr]
        remote = (Path(sandbox.handle) / ID_FILE).read_text()
        registry = PersistentSandboxRegistry()
        record = registry.record_remote("opensandbox", remote, spec)
        with registry.reattach_remote(record) as again:
            assert again.dispatch(BackendToolFilesRead(path="a.txt")) == FileContent("plane")
            with backend.attach(remote) as third:
                assert third.dispatch(BackendToolFilesExists(path="a.txt")) is True
    assert remote not in sandboxes(docker_host)


def shell(cmd: str) -> tuple[str, dict[str, str]]:
    return "run_shell_command", {"cmd": cmd}


def test_a_durable_agent_runs_its_tools_in_one_opensandbox_sandbox(
    rath_env: Settings, spec: BackendSandboxSpec, tmp_path: Path
) -> None:
    script = [
        tool_call_reply(shell("echo made-in-opensandbox > out.txt")),
        tool_call_reply(shell("cat out.txt; hostname")),
        text_reply("done"),
    ]
    with FakeChatServer(script) as server:
        root = Session.from_user_message("go").to("opensandbox", spec=spec)
        out = flow.Agent("x", provider=fake_provider(server), options=FAST)(root)
        bodies = tool_bodies(out)
    assert bodies[1]["stdout"].startswith("made-in-opensandbox\n")
    assert not (tmp_path / "out.txt").exists()  # it is in the sandbox, not on the worker
    root.release()
    assert out.release()


def test_the_opensandbox_example(
    opensandbox_server: OpenSandboxServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATH_OPENSANDBOX_IMAGE", opensandbox_server.image)
    result = run_example("opensandbox_demo.py", tmp_path, tmp_path / "home")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "plane: step 1: say hello | /workspace" in out
    assert '[rath demo model] Wrote notes.txt (2 bytes). Read it back: "hi".' in out
    assert "nothing was written on this host: True" in out
    assert opensandbox_server.api_key not in out + result.stderr


def test_session_helpers_and_the_agent_share_one_sandbox(
    rath_env: Settings, spec: BackendSandboxSpec
) -> None:
    root = Session.from_user_message("go").to("opensandbox", spec=spec)
    # OpenRath's session-level helper: a plane handle on the session's workspace. Closing it
    # lets go of the sandbox without killing it, so the agent's worker reattaches to it.
    written = flow_tool_files_write(root, "seed.txt", "from the client")
    assert written.bytes_written == len("from the client")
    script = [tool_call_reply(shell("cat seed.txt")), text_reply("done")]
    with FakeChatServer(script) as server:
        out = flow.Agent("x", provider=fake_provider(server), options=FAST)(root)
        bodies = tool_bodies(out)
    assert bodies[0]["stdout"] == "from the client"
    root.release()
    assert out.release()  # the last holder: the worker kills the sandbox
