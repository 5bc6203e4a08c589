"""A real OpenViking server for tests: ``openviking-server`` on 127.0.0.1, offline.

Its embedding model is Rath's fake OpenAI-compatible embedding server (trigram vectors, so
ranking is real but simple), its data a temporary directory. The server comes from
``bash infra/openviking.sh`` (``.venv-openviking``) or ``$RATH_OPENVIKING_SERVER``; without it
the tests that need it skip and say that command.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from rath.memory.testing import FakeEmbeddingServer

INSTALL = "bash infra/openviking.sh"
_ROOT = Path(__file__).resolve().parent.parent
_START_TIMEOUT = 90.0


@dataclass(frozen=True)
class OpenViking:
    """A running server and an account's user key (the root key is refused for data)."""

    url: str
    api_key: str
    account: str
    user: str


def server_binary() -> str | None:
    """Where ``openviking-server`` is, or ``None``."""
    candidates = [
        os.environ.get("RATH_OPENVIKING_SERVER"),
        str(_ROOT / ".venv-openviking/bin/openviking-server"),
        shutil.which("openviking-server"),
    ]
    return next((c for c in candidates if c and Path(c).is_file()), None)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def openviking(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OpenViking]:
    """Start the server (once per session), create an account, stop it at the end."""
    binary = server_binary()
    if binary is None:
        pytest.skip(f"the OpenViking server is not installed: run `{INSTALL}`")
    pytest.importorskip("openviking_sdk", reason="pip install 'rath[openviking]'")
    from openviking_sdk import SyncHTTPClient

    folder = tmp_path_factory.mktemp("openviking")
    port = _free_port()
    root_key = secrets.token_hex(16)
    with FakeEmbeddingServer(dimensions=64) as embedder:
        config = {
            "server": {"host": "127.0.0.1", "port": port, "root_api_key": root_key},
            "storage": {"workspace": str(folder / "workspace")},
            "embedding": {
                "dense": {
                    "provider": "openai",
                    "model": "fake-embed",
                    "api_base": embedder.base_url,
                    "api_key": "unused",
                    "dimension": 64,
                    "input": "text",
                }
            },
        }
        (folder / "ov.conf").write_text(json.dumps(config))
        log = (folder / "server.log").open("wb")
        process = subprocess.Popen(
            [binary, "--config", str(folder / "ov.conf")],
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "HOME": str(folder)},
        )
        try:
            url = f"http://127.0.0.1:{port}"
            _wait_healthy(url, process, folder / "server.log")
            admin = SyncHTTPClient(url=url, api_key=root_key, timeout=30)
            admin.initialize()
            account = admin.admin_create_account("rath-tests", "alice")
            admin.close()
            yield OpenViking(
                url=url, api_key=account["user_key"], account="rath-tests", user="alice"
            )
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
            log.close()


def _wait_healthy(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + _START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"openviking-server exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(
        f"openviking-server not healthy in {_START_TIMEOUT} s: {log.read_text()[-2000:]}"
    )
