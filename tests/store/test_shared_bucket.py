"""A worker and a client that share nothing but ``RATH_STORE_URL`` (an S3 bucket on a moto
server) and a Temporal reached through mutual TLS (a TLS relay in front of the dev server): the
worker process runs the Squad, the client reads every row from the bucket."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from s3_server import S3Server
from support import FAST
from tls_relay import make_pki, tls_relay
from workers import WorkerProcess

from rath.flow import Provider
from rath.runtime.runtime import shutdown_runtime
from rath.session import ChunkKind, Session
from rath.settings import Settings
from rath.store import ChunkStore, open_objects
from rath.testing import FakeChatServer, function_handler

COMPOSE_DIR = str(Path(__file__).resolve().parents[1] / "compose")
ROLES = ("planner", "coder_a", "coder_b", "reviewer")


def _objects_under(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


def test_worker_and_client_share_only_the_store_url(
    remote_env: dict[str, str],
    server_address: str,
    s3_env: S3Server,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from squad_app import Squad

    pki = make_pki(tmp_path)
    with tls_relay(server_address, pki, require_client_cert=True) as relay:
        mtls = {
            "TEMPORAL_ADDRESS": relay,
            "TEMPORAL_TLS_SERVER_CA_CERT_PATH": str(pki.ca),
            "TEMPORAL_TLS_CLIENT_CERT_PATH": str(pki.client_cert),
            "TEMPORAL_TLS_CLIENT_KEY_PATH": str(pki.client_key),
        }
        for name, value in mtls.items():
            monkeypatch.setenv(name, value)
        _run_the_squad(remote_env | mtls, s3_env, tmp_path, monkeypatch, Squad)


def _run_the_squad(
    remote_env: dict[str, str],
    s3_env: S3Server,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    Squad: Any,
) -> None:
    url = f"s3://{s3_env.new_bucket()}/squad"
    monkeypatch.setenv("RATH_STORE_URL", url)
    client_store = tmp_path / "client-store"  # the client's local store dir, kept empty
    monkeypatch.setenv("RATH_STORE_DIR", str(client_store))
    worker_home = tmp_path / "worker-home"
    env = (
        remote_env
        | s3_env.env
        | {
            "RATH_STORE_URL": url,
            "RATH_HOME": str(worker_home),  # not the client's data dir, nor its store dir
            "RATH_STORE_DIR": str(worker_home / "store"),
            "PYTHONPATH": os.pathsep.join([COMPOSE_DIR, remote_env.get("PYTHONPATH", "")]),
        }
    )
    servers = {
        role: FakeChatServer(function_handler(lambda r, role=role: f"{role} says done"))
        for role in ROLES
    }
    for server in servers.values():
        server.start()
    try:
        with WorkerProcess(env, "--workflows", "squad_app:Squad"):
            providers = {
                role: Provider(model="fake-model", base_url=server.base_url)
                for role, server in servers.items()
            }
            squad = Squad(providers["planner"], options=FAST, **providers)
            out = squad(Session.from_user_message("build it"))
            rows = out.chunk_table.rows  # read by the client, from the bucket
    finally:
        shutdown_runtime(Settings.from_env())  # it connects through the relay, closed next
        for server in servers.values():
            server.stop()

    texts = [row.payload.get("content") for row in rows if row.kind == ChunkKind.ASSISTANT]
    assert rows[0].payload["content"] == "build it"
    assert texts[0] == "planner says done"
    assert {"coder_a says done", "coder_b says done"} <= set(texts)
    assert texts[-1] == "reviewer says done"
    assert [len(servers[role].requests) for role in ROLES] == [1, 1, 1, 1]

    # A cold store on the URL alone reads the same rows; nothing went through local dirs.
    cold = ChunkStore(open_objects(url)).load_rows(out.table)
    assert cold == rows
    assert [p for p in _objects_under(client_store) if "sandboxes" not in p.parts] == []
    assert [p for p in _objects_under(worker_home / "store") if "sandboxes" not in p.parts] == []
    listed = s3_env.client().list_objects_v2(Bucket=url.split("/")[2])  # type: ignore[attr-defined]
    assert listed["KeyCount"] >= len(rows)
