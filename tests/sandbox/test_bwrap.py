"""What only the bwrap backend promises: read-only root, no network, own PIDs, rlimits."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from rath.backend import BackendSandboxSpec, SandboxLimits
from rath.backend.sandboxes import (
    BwrapSandbox,
    SandboxUnavailableError,
    open_sandbox,
)

_REASON = BwrapSandbox.unavailable_reason()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")


def _spec(workspace: Path, **fields: Any) -> BackendSandboxSpec:
    return BackendSandboxSpec(
        backend="bwrap", working_dir=str(workspace), timeout=timedelta(seconds=20), **fields
    )


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP port listening on the host's 127.0.0.1."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


CONNECT = """
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=3).close()
    print("connected")
except OSError as exc:
    print(type(exc).__name__)
"""


@pytest.fixture(params=["/tmp", "/var/tmp"], ids=["workspace_under_tmp", "workspace_elsewhere"])
def located_workspace(request: pytest.FixtureRequest) -> Iterator[Path]:
    """A workspace directory created directly under the parameter's directory."""
    if not os.access(request.param, os.W_OK):
        pytest.skip(f"{request.param} is not writable")
    workspace = Path(tempfile.mkdtemp(prefix="rath-ws-", dir=request.param))
    yield workspace
    shutil.rmtree(workspace)


async def test_root_is_read_only_and_tmp_is_private(located_workspace: Path) -> None:
    async with open_sandbox(_spec(located_workspace)) as sb:
        for cmd in ["touch /etc/rath-x", "touch /rath-x", "mkdir /usr/rath-x", "touch /var/x"]:
            result = await sb.run_command(cmd)
            assert result.exit_code != 0, cmd
            assert "Read-only file system" in result.stderr
        result = await sb.run_command("ls -A /tmp; echo t > /tmp/t && cat /tmp/t && ls -A /tmp")
        assert result.stdout == "t\nt\n"  # a fresh, empty /tmp: none of the host's files
        written = await sb.run_command("echo w > /workspace/w && echo w2 > w2 && pwd")
        assert written.stdout == "/workspace\n"
        again = await sb.run_command("ls -A /tmp")
        assert again.stdout == ""  # and a new one for every command
    assert (located_workspace / "w").read_text() == "w\n"
    assert (located_workspace / "w2").read_text() == "w2\n"
    assert not os.path.exists("/etc/rath-x")
    assert not os.path.exists("/tmp/t")


CHILD = """
import asyncio, json, site, sys
site.addsitedir({site!r})  # this test run's packages (and Rath), .pth files included
from datetime import timedelta
from rath.backend import BackendSandboxSpec
from rath.backend.sandboxes import open_sandbox

async def main():
    spec = BackendSandboxSpec(
        backend="bwrap", working_dir={workspace!r}, timeout=timedelta(seconds=20)
    )
    async with open_sandbox(spec) as sb:
        tmp = await sb.run_command("ls -A /tmp")
        code = await sb.run_code("import sys; print(sys.version_info[:2])")
    print(json.dumps({{"prefix": sys.prefix, "tmp": tmp.stdout, "code": code.stdout}}))

asyncio.run(main())
"""


def test_tmp_stays_empty_when_the_worker_venv_lives_under_tmp(tmp_path: Path) -> None:
    # CI clones the repository (and creates its venv) under /tmp: the sandbox's /tmp must
    # still be empty, and code must still run.
    venv = Path(tempfile.mkdtemp(prefix="rath-venv-", dir="/tmp"))
    try:
        subprocess.run(
            [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60
        )
        child = CHILD.format(site=sysconfig.get_paths()["purelib"], workspace=str(tmp_path))
        done = subprocess.run(
            [str(venv / "bin" / "python"), "-c", child],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        shutil.rmtree(venv)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["prefix"] == str(venv)
    assert seen["tmp"] == ""
    assert seen["code"] == f"{tuple(sys.version_info[:2])}\n"


async def test_no_network_but_own_loopback(tmp_path: Path, listener: int) -> None:
    async with open_sandbox(_spec(tmp_path)) as sb:
        host = await sb.run_code(CONNECT.format(port=listener))
        assert host.stdout == "ConnectionRefusedError\n"  # the host's loopback is not reachable
        own = await sb.run_code(
            "import socket\ns = socket.create_server(('127.0.0.1', 0))\n"
            "socket.create_connection(s.getsockname()).close()\nprint('own loopback')"
        )
        assert own.stdout == "own loopback\n"
        interfaces = await sb.run_command("cat /proc/net/dev")
        assert [line.split(":")[0].strip() for line in interfaces.stdout.splitlines()[2:]] == ["lo"]


async def test_host_network_reaches_the_hosts_loopback(tmp_path: Path, listener: int) -> None:
    async with open_sandbox(_spec(tmp_path, host_network=True)) as sb:
        assert (await sb.run_code(CONNECT.format(port=listener))).stdout == "connected\n"


async def test_own_pid_namespace_and_no_capabilities(tmp_path: Path) -> None:
    async with open_sandbox(_spec(tmp_path)) as sb:
        pids = await sb.run_command("ls -d /proc/[0-9]*")
        assert len(pids.stdout.split()) <= 4  # bwrap's init, prlimit+sh, ls
        signal_worker = await sb.run_command(f"kill -0 {os.getpid()}")
        assert signal_worker.exit_code != 0
        caps = await sb.run_command("grep CapEff /proc/self/status")
        assert caps.stdout.split() == ["CapEff:", "0000000000000000"]


async def test_resource_limits(tmp_path: Path) -> None:
    limits = SandboxLimits(memory_mb=128, pids=64, file_size_mb=1)
    async with open_sandbox(_spec(tmp_path, limits=limits)) as sb:
        big = await sb.run_command("head -c 2000000 /dev/zero > big")
        assert big.exit_code != 0
        assert (tmp_path / "big").stat().st_size == 1024 * 1024
        memory = await sb.run_code("b = bytearray(512 * 1024 * 1024)\nprint('allocated')")
        assert memory.exit_code == 1 and memory.error and "MemoryError" in memory.error
        shown = await sb.run_command("ulimit -d; ulimit -f; ulimit -p; ulimit -c")
        assert shown.stdout.split() == [str(128 * 1024), str(2048), "64", "0"]


async def test_the_data_dir_is_hidden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = "/var/tmp" if os.access("/var/tmp", os.W_OK) else None
    if base is None:
        pytest.skip("needs a writable directory outside /tmp")
    home = Path(tempfile.mkdtemp(prefix="rath-home-", dir=base))
    try:
        (home / "store").mkdir()
        (home / "store" / "transcript").write_text("another session's secret")
        monkeypatch.setenv("RATH_HOME", str(home))
        async with open_sandbox(_spec(tmp_path)) as sb:
            result = await sb.run_command(f"cat {home}/store/transcript")
        assert result.exit_code != 0
        assert "secret" not in result.stdout
    finally:
        shutil.rmtree(home)


async def test_the_hosts_runtime_sockets_are_out_of_reach(tmp_path: Path) -> None:
    """A read-only mount does not stop connect(): /run (the Docker socket, D-Bus) is empty."""
    if not os.access("/run", os.W_OK):
        pytest.skip("needs a writable /run to place a socket there")
    path = f"/run/rath-test-{os.getpid()}.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(path)
        server.listen()
        try:
            code = f"import socket; s = socket.socket(socket.AF_UNIX); s.connect({path!r})"
            async with open_sandbox(_spec(tmp_path)) as sb:
                seen = await sb.run_command(f"test -e {path} && echo visible || echo hidden")
                reached = await sb.run_code(code)
        finally:
            os.unlink(path)
    assert seen.stdout == "hidden\n"
    assert reached.exit_code != 0 and "FileNotFoundError" in reached.stderr


async def test_missing_bwrap_is_reported_with_the_available_backends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap on PATH
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-docker.sock")
    sandbox = open_sandbox(_spec(tmp_path))
    with pytest.raises(SandboxUnavailableError) as info:
        await sandbox.run_command("true")
    await sandbox.aclose()
    assert str(info.value) == (
        "sandbox backend 'bwrap' is unavailable: bubblewrap is not installed "
        "(apt-get install bubblewrap). Available: local"
    )
    assert (info.value.backend, info.value.available) == ("bwrap", ("local",))
