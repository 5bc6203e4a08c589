"""What only the docker backend promises: no network, enforced limits, no leaked containers."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docker
import pytest

from rath.backend import BackendSandboxSpec, SandboxLimits
from rath.backend.sandboxes import (
    DockerSandbox,
    SandboxUnavailableError,
    ToolFailure,
    available_backends,
    open_sandbox,
)
from rath.backend.sandboxes.docker import LABEL
from rath.errors import ConfigError, SandboxError

PROCESSES = (
    "import os\nfor pid in sorted(os.listdir('/proc'), key=lambda p: p.zfill(9)):\n"
    "    if pid.isdigit():\n"
    "        print(open(f'/proc/{pid}/cmdline', 'rb').read().replace(b'\\0', b' ').decode())"
)


@pytest.fixture
def spec(tmp_path: Path, docker_image: str) -> Iterator[BackendSandboxSpec]:
    """A docker spec over ``tmp_path``; afterwards, no sandbox container may be left."""
    yield BackendSandboxSpec(backend="docker", working_dir=str(tmp_path), image=docker_image)
    client = docker.from_env()
    leaked = client.containers.list(all=True, filters={"label": LABEL})
    client.close()
    assert leaked == []


def _with(spec: BackendSandboxSpec, **fields: Any) -> BackendSandboxSpec:
    return dataclasses.replace(spec, **fields)


async def test_container_is_locked_down_and_removed_on_close(
    spec: BackendSandboxSpec, docker_client: docker.DockerClient
) -> None:
    limits = SandboxLimits(memory_mb=256, pids=64, cpus=0.5, file_size_mb=8)
    async with open_sandbox(_with(spec, limits=limits)) as sb:
        (container,) = docker_client.containers.list(filters={"label": LABEL})
        host = container.attrs["HostConfig"]
        assert host["NetworkMode"] == "none"
        assert host["ReadonlyRootfs"] is True
        assert host["Memory"] == host["MemorySwap"] == 256 * 1024 * 1024
        assert (host["PidsLimit"], host["NanoCpus"]) == (64, 500_000_000)
        assert host["CapDrop"] == ["ALL"]
        assert host["SecurityOpt"] == ["no-new-privileges"]
        assert host["Ulimits"] == [{"Name": "fsize", "Soft": 8 << 20, "Hard": 8 << 20}]
        result = await sb.run_command("touch /etc/x; touch /x; echo t > /tmp/t && cat /tmp/t")
        assert result.stdout == "t\n"
        assert result.stderr.count("Read-only file system") == 2
    assert docker_client.containers.list(all=True, filters={"label": LABEL}) == []


async def test_no_network(spec: BackendSandboxSpec) -> None:
    async with open_sandbox(spec) as sb:
        interfaces = await sb.run_command("cat /proc/net/dev")
        names = [line.split(":")[0].strip() for line in interfaces.stdout.splitlines()[2:]]
        assert names == ["lo"]
        code = "import socket\ntry:\n    socket.create_connection(('192.0.2.1', 80), 2)\n"
        code += "except OSError as exc:\n    print(exc.errno)"
        result = await sb.run_code(code)
        assert result.stdout.strip() == "101"  # ENETUNREACH: there is no route at all


async def test_memory_limit_is_enforced(spec: BackendSandboxSpec) -> None:
    async with open_sandbox(_with(spec, limits=SandboxLimits(memory_mb=64))) as sb:
        result = await sb.run_code("data = b'x' * (256 * 1024 * 1024)\nprint('allocated')")
        assert result.stdout == ""
        assert result.exit_code in (137, -9)  # killed by the OOM killer
        small = await sb.run_code("data = b'x' * (16 * 1024 * 1024)\nprint('allocated')")
        assert small.stdout == "allocated\n"  # the container survives


async def test_workspace_changes_are_visible_both_ways(
    tmp_path: Path, spec: BackendSandboxSpec
) -> None:
    async with open_sandbox(spec) as sb:
        (tmp_path / "from_host.txt").write_text("host")
        result = await sb.run_command("cat from_host.txt && echo container > from_container.txt")
        assert result.stdout == "host"
        assert (tmp_path / "from_container.txt").read_text() == "container\n"
        await sb.run_command("rm from_host.txt")
        assert not (tmp_path / "from_host.txt").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="chown needs root")
async def test_runs_as_the_workspace_owner(tmp_path: Path, spec: BackendSandboxSpec) -> None:
    os.chown(tmp_path, 1000, 1000)
    async with open_sandbox(spec) as sb:
        result = await sb.run_command("id -u; id -g; touch mine")
    assert result.stdout.split() == ["1000", "1000"]
    info = (tmp_path / "mine").stat()
    assert (info.st_uid, info.st_gid) == (1000, 1000)


async def test_timeout_leaves_no_process_behind(spec: BackendSandboxSpec) -> None:
    async with open_sandbox(spec) as sb:
        before = (await sb.run_code(PROCESSES)).stdout.splitlines()
        # The pid file is gone: the process group is found through RATH_EXEC_ID instead.
        with pytest.raises(ToolFailure, match="timeout"):
            await sb.run_command("rm -f /tmp/.rath-*; sleep 1000 & sleep 1000", timeout=1)
        # A child in a session of its own escapes the group kill, not the RATH_EXEC_ID one.
        escape = (
            "import subprocess, time\nsubprocess.Popen(['sleep', '999'], start_new_session=True)"
        )
        with pytest.raises(ToolFailure, match="timeout"):
            await sb.run_code(escape + "\ntime.sleep(1000)", timeout=1.5)
        after = (await sb.run_code(PROCESSES)).stdout.splitlines()
    assert not [line for line in after if "sleep 99" in line or "sleep 1000" in line]
    assert len(after) == len(before)


async def test_silent_command_outlives_the_api_timeout(spec: BackendSandboxSpec) -> None:
    class QuickApi(DockerSandbox):
        api_timeout = 1.0

    async with QuickApi(spec) as sb:
        result = await sb.run_command("sleep 2.5; echo done")
    assert result.stdout == "done\n"


async def test_missing_image_is_a_clear_error(spec: BackendSandboxSpec) -> None:
    sandbox = open_sandbox(_with(spec, image="rath-no-such-image:1"))
    with pytest.raises(SandboxError, match="not on the Docker host; nothing is pulled"):
        await sandbox.__aenter__()
    await sandbox.aclose()


async def test_unreachable_daemon_lists_available_backends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/nothing.sock")
    spec = BackendSandboxSpec(backend="docker", working_dir=str(tmp_path))
    with pytest.raises(SandboxUnavailableError) as info:
        async with open_sandbox(spec):
            pass
    message = str(info.value)
    assert message.startswith(
        f"sandbox backend 'docker' is unavailable: no Docker daemon answers: "
        f"docker (unix://{tmp_path}/nothing.sock): "
    )
    assert info.value.available == available_backends()
    assert "local" in info.value.available and "docker" not in info.value.available
    assert message.endswith(". Available: " + ", ".join(info.value.available))


def test_host_network_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--network none"):
        open_sandbox(
            BackendSandboxSpec(backend="docker", working_dir=str(tmp_path), host_network=True)
        )
