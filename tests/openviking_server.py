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
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from server_process import free_port, server_process

from rath.testing.fake_embedder import FakeEmbeddingServer

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


@pytest.fixture(scope="session")
def openviking(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OpenViking]:
    """Start the server (once per session), create an account, stop it at the end."""
    binary = server_binary()
    if binary is None:
        pytest.skip(f"the OpenViking server is not installed: run `{INSTALL}`")
    pytest.importorskip("openviking_sdk", reason="pip install 'rath[openviking]'")
    from openviking_sdk import SyncHTTPClient

    folder = tmp_path_factory.mktemp("openviking")
    port = free_port()
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
        url = f"http://127.0.0.1:{port}"
        with server_process(
            [binary, "--config", str(folder / "ov.conf")],
            health_url=f"{url}/health",
            log=folder / "server.log",
            env={"HOME": str(folder)},
            timeout=_START_TIMEOUT,
            graceful=False,  # its graceful stop took 6 to 20 s; its data is thrown away
        ):
            admin = SyncHTTPClient(url=url, api_key=root_key, timeout=30)
            admin.initialize()
            account = admin.admin_create_account("rath-tests", "alice")
            admin.close()
            key = account["user_key"]
            yield OpenViking(url=url, api_key=key, account="rath-tests", user="alice")
