"""Sandbox fixtures: the backend matrix, and a private Docker daemon with a locally built image.

The daemon starts once per test session, only when a docker test needs it, with networking
off; it is stopped at the end. Docker tests skip (with the reason) only where ``dockerd`` is
missing or cannot start; bwrap tests only where bubblewrap cannot run.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import docker
import pytest
from sandbox.backends import BACKENDS, Backend
from sandbox.docker_env import build_python_image, start_dockerd

from rath.backend.sandboxes import BwrapSandbox


@pytest.fixture(scope="session")
def docker_host() -> Iterator[str]:
    """``DOCKER_HOST`` of a daemon started for this session (set in the environment too)."""
    if shutil.which("dockerd") is None:
        pytest.skip("dockerd is not installed: run `sudo bash infra/system-deps.sh`")
    if os.geteuid() != 0:
        pytest.skip("starting dockerd needs root")
    root = Path(tempfile.mkdtemp(prefix="rath-dockerd-"))  # short: the socket path is bounded
    started = time.monotonic()
    try:
        daemon = start_dockerd(root)
    except RuntimeError as exc:
        shutil.rmtree(root, ignore_errors=True)
        pytest.skip(f"no Docker daemon could start: {exc}")
    print(f"\n[docker] dockerd ready in {time.monotonic() - started:.1f} s")
    patch = pytest.MonkeyPatch()
    patch.setenv("DOCKER_HOST", daemon.host)
    try:
        yield daemon.host
    finally:
        patch.undo()
        daemon.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def docker_image(docker_host: str) -> str:
    """A local image with /bin/sh, coreutils and Python (built once per session, no pull)."""
    client = docker.DockerClient(base_url=docker_host)
    started = time.monotonic()
    try:
        tag = build_python_image(client)
    finally:
        client.close()
    print(f"\n[docker] image {tag} ready in {time.monotonic() - started:.1f} s")
    return tag


@pytest.fixture
def docker_client(docker_host: str) -> Iterator[docker.DockerClient]:
    """A client of the session's daemon."""
    client = docker.DockerClient(base_url=docker_host)
    yield client
    client.close()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    """Each backend in turn; isolating ones skip only where they cannot run."""
    name = request.param
    if name == "bwrap":
        reason = BwrapSandbox.unavailable_reason()
        if reason is not None:
            pytest.skip(reason)
    if name == "docker":
        return Backend(name, {"image": request.getfixturevalue("docker_image")})
    return Backend(name)
