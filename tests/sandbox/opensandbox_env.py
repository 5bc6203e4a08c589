"""A real OpenSandbox server for tests, on the session's private Docker daemon.

``opensandbox-server`` (from ``bash infra/opensandbox.sh``, or ``$RATH_OPENSANDBOX_SERVER``)
runs on 127.0.0.1 and creates each sandbox as a container of the session's locally built
Python image, on a user-defined bridge network (testcontainers' ``Network``) so that every
sandbox's agent has its own address; never host mode, where sandboxes share one agent port.

One part cannot be had offline: OpenSandbox's in-sandbox agent ships only as the image
``opensandbox/execd``. The tests use a **stand-in** written from its published API
(``tests/opensandbox_execd.py``), built into an image with testcontainers' ``DockerImage``.
Where images can be pulled, ``RATH_OPENSANDBOX_EXECD_IMAGE=opensandbox/execd:v1.1.0`` runs the
same tests against the real agent.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import docker
import pytest
from server_process import free_port, server_process
from testcontainers.core.image import DockerImage
from testcontainers.core.network import Network

INSTALL = "bash infra/opensandbox.sh"
_ROOT = Path(__file__).resolve().parents[2]
_STAND_IN = _ROOT / "tests" / "opensandbox_execd.py"
_BOOTSTRAP = (
    '#!/bin/sh\n/opt/opensandbox/execd &\nif [ "$#" -eq 0 ]; then wait; else exec "$@"; fi\n'
)
_START_TIMEOUT = 60.0


@dataclass(frozen=True)
class OpenSandboxServer:
    """A running server: its ``host:port``, its API key, and the sandbox image to use."""

    domain: str
    api_key: str
    image: str


def server_binary() -> str | None:
    """Where ``opensandbox-server`` is, or ``None``."""
    candidates = [
        os.environ.get("RATH_OPENSANDBOX_SERVER"),
        str(_ROOT / ".venv-opensandbox/bin/opensandbox-server"),
        shutil.which("opensandbox-server"),
    ]
    return next((c for c in candidates if c and Path(c).is_file()), None)


def build_execd_image(base_image: str) -> str:
    """The stand-in agent on top of ``base_image`` (its Python runs the agent)."""
    folder = Path(tempfile.mkdtemp(prefix="rath-execd-"))
    try:
        shutil.copy(_STAND_IN, folder / "execd")
        (folder / "bootstrap.sh").write_text(_BOOTSTRAP)
        for name in ("execd", "bootstrap.sh"):
            (folder / name).chmod(0o755)
        (folder / "Dockerfile").write_text(
            f"FROM {base_image}\nCOPY execd /execd\nCOPY bootstrap.sh /bootstrap.sh\n"
        )
        tag = f"rath-test-execd:{secrets.token_hex(4)}"
        image = DockerImage(path=str(folder), tag=tag, clean_up=False)
        image.build()
        return tag
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _config(folder: Path, port: int, key: str, execd_image: str, network: str) -> Path:
    low = 42000 + secrets.randbelow(8000)
    path = folder / "server.toml"
    path.write_text(
        "\n".join(
            [
                "[server]",
                'host = "127.0.0.1"',
                f"port = {port}",
                f'api_key = "{key}"',
                "[log]",
                'level = "WARNING"',
                "[runtime]",
                'type = "docker"',
                f'execd_image = "{execd_image}"',
                "[store]",
                'type = "sqlite"',
                f'path = "{folder / "opensandbox.db"}"',
                "[docker]",
                f'network_mode = "{network}"',
                f"port_range_min = {low}",
                f"port_range_max = {low + 999}",
                "",
            ]
        )
    )
    return path


@pytest.fixture(scope="session")
def opensandbox_server(
    rath_home: Path,
    docker_host: str,
    docker_image: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[OpenSandboxServer]:
    """Start the server (once per session) and name it to Rath; stop it at the end.

    After ``rath_home``, which clears ``OPEN_SANDBOX_*`` for the session: this names the server.
    """
    binary = server_binary()
    if binary is None:
        pytest.skip(f"the OpenSandbox server is not installed: run `{INSTALL}`")
    pytest.importorskip("opensandbox", reason="pip install 'rath[opensandbox]'")

    patch = pytest.MonkeyPatch()
    patch.setenv("TESTCONTAINERS_RYUK_DISABLED", "true")  # Ryuk's image cannot be pulled
    execd_image = os.environ.get("RATH_OPENSANDBOX_EXECD_IMAGE") or build_execd_image(docker_image)
    folder = tmp_path_factory.mktemp("opensandbox")
    port = free_port()
    key = secrets.token_hex(16)
    with Network() as network:
        config = _config(folder, port, key, execd_image, network.name)
        try:
            with server_process(
                [binary, "--config", str(config)],
                health_url=f"http://127.0.0.1:{port}/health",
                log=folder / "server.log",
                env={"DOCKER_HOST": docker_host, "HOME": str(folder)},
                timeout=_START_TIMEOUT,
            ):
                patch.setenv("OPEN_SANDBOX_DOMAIN", f"127.0.0.1:{port}")
                patch.setenv("OPEN_SANDBOX_API_KEY", key)
                yield OpenSandboxServer(domain=f"127.0.0.1:{port}", api_key=key, image=docker_image)
        finally:
            patch.undo()
            _remove_sandboxes(docker_host)


def _remove_sandboxes(docker_host: str) -> None:
    """Remove sandbox containers the tests left (so the network can be removed)."""
    client = docker.DockerClient(base_url=docker_host)
    try:
        for container in client.containers.list(all=True):
            if any(key.startswith("opensandbox") for key in container.labels):
                container.remove(force=True)
    finally:
        client.close()
