"""A session's sandbox stays open between its tool calls, on the worker that owns it.

With docker that is one container per session instead of one per call: ``/tmp`` (private to
the container) keeps what an earlier call wrote, and the container goes when the session's
sandbox is closed, when it has been idle, when its backend broke, or when the worker stops.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path

import docker
import pytest
from sandbox.backends import Backend
from support import FAST, fake_provider, tool_bodies

from rath import flow
from rath.activities._sandbox_pool import SandboxPool
from rath.backend import BackendSandboxSpec
from rath.runtime.runtime import shutdown_runtime
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, gated, text_reply, tool_call_reply


def shell(cmd: str) -> tuple[str, dict[str, str]]:
    return ("run_shell_command", {"cmd": cmd})


def containers(client: docker.DockerClient) -> list[str]:
    """Ids of the sandbox containers on the test daemon (running or not)."""
    found = client.containers.list(all=True, filters={"label": "rath.sandbox"})
    return [container.id for container in found]


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Return once ``condition()`` holds; fail after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


@pytest.fixture
def docker_backend(docker_image: str) -> Backend:
    return Backend("docker", {"image": docker_image})


def test_a_session_keeps_one_container_until_its_sandbox_is_closed(
    rath_env: Settings, tmp_path: Path, docker_backend: Backend, docker_client: docker.DockerClient
) -> None:
    assert containers(docker_client) == []
    script = [
        tool_call_reply(shell("echo kept > /tmp/note")),
        tool_call_reply(shell("cat /tmp/note")),
        text_reply("done"),
    ]
    with FakeChatServer(script) as server:
        root = Session.from_user_message("go").to("docker", spec=docker_backend.spec(tmp_path))
        out = flow.Agent("x", provider=fake_provider(server), options=FAST)(root)
        bodies = tool_bodies(out)
    # /tmp is the container's own: the second call saw the first one's file.
    assert bodies[1]["stdout"] == "kept\n"
    assert len(containers(docker_client)) == 1
    root.release()
    assert out.release()  # the last holder: the sandbox is closed on its owner
    assert containers(docker_client) == []


def test_stopping_the_worker_removes_its_containers(
    rath_env: Settings, tmp_path: Path, docker_backend: Backend, docker_client: docker.DockerClient
) -> None:
    script = [tool_call_reply(shell("true")), text_reply("done")]
    with FakeChatServer(script) as server:
        root = Session.from_user_message("go").to("docker", spec=docker_backend.spec(tmp_path))
        tool_bodies(flow.Agent("x", provider=fake_provider(server), options=FAST)(root))
    assert len(containers(docker_client)) == 1
    shutdown_runtime(rath_env)
    assert containers(docker_client) == []


def test_a_container_that_died_is_replaced_for_the_next_call(
    rath_env: Settings, tmp_path: Path, docker_backend: Backend, docker_client: docker.DockerClient
) -> None:
    second = threading.Event()
    script = [
        tool_call_reply(shell("echo a")),
        gated(tool_call_reply(shell("echo b")), second),
        tool_call_reply(shell("echo c")),
        text_reply("done"),
    ]
    with FakeChatServer(script) as server:
        root = Session.from_user_message("go").to("docker", spec=docker_backend.spec(tmp_path))
        out = flow.Agent("x", provider=fake_provider(server), options=FAST)(root)
        server.wait_for_requests(2, timeout=60)  # the first call ran; the model is held
        (dead,) = containers(docker_client)
        docker_client.containers.get(dead).remove(force=True)  # the daemon lost it
        second.set()
        bodies = tool_bodies(out)
    assert bodies[0]["stdout"] == "a\n"
    assert bodies[1]["ok"] is False and bodies[1]["detail"] == "SandboxError"
    assert bodies[2]["stdout"] == "c\n"  # a fresh container
    assert len(containers(docker_client)) == 1
    root.release()
    out.release()


async def test_an_idle_sandbox_is_closed_and_reopened_on_the_next_call(tmp_path: Path) -> None:
    pool = SandboxPool(idle_timeout=0.1)
    spec = BackendSandboxSpec(backend="local", working_dir=str(tmp_path))
    try:
        async with pool.use("s", spec) as first, pool.use("s", spec) as again:
            assert again is first  # concurrent calls share it
        await until(lambda: not pool.is_open("s"))
        async with pool.use("s", spec) as reopened:
            assert reopened is not first
            assert (await reopened.run_command("echo ok")).stdout == "ok\n"
    finally:
        await pool.aclose()
    assert not pool.is_open("s")
