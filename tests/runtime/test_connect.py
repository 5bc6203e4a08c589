"""Connections the Temporal way: TLS and mTLS for real (a relay in front of the dev server),
and one line naming the setting to fix when a connection cannot be made."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from support import FAST, fake_provider
from tls_relay import Pki, make_pki, tls_relay
from workers import WorkerProcess

from rath import flow
from rath.runtime.runtime import shutdown_runtime
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply


@pytest.fixture
def pki(tmp_path: Path) -> Pki:
    return make_pki(tmp_path)


def _check(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    rath = str(Path(sys.executable).with_name("rath"))
    return subprocess.run(
        [rath, "worker", "--check"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _tls_env(address: str, pki: Pki, **extra: str) -> dict[str, str]:
    return dict(
        os.environ,
        TEMPORAL_ADDRESS=address,
        TEMPORAL_TLS_SERVER_CA_CERT_PATH=str(pki.ca),
        RATH_TASK_QUEUE=f"tls-{uuid.uuid4().hex[:8]}",
        **extra,
    )


def test_a_session_runs_over_tls(
    server_address: str, pki: Pki, rath_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with tls_relay(server_address, pki) as relay:
        env = _tls_env(relay, pki)
        for name in ("TEMPORAL_ADDRESS", "TEMPORAL_TLS_SERVER_CA_CERT_PATH", "RATH_TASK_QUEUE"):
            monkeypatch.setenv(name, env[name])
        settings = Settings.from_env()
        try:
            with WorkerProcess(env), FakeChatServer([text_reply("secure")]) as server:
                agent = flow.Agent("x", provider=fake_provider(server, api_key=None), options=FAST)
                out = agent(Session.from_user_message("hi"))
                assert out.chunk_table.rows[-1].payload["content"] == "secure"
        finally:
            shutdown_runtime(settings)


def test_a_wrong_ca_fails_in_one_line(server_address: str, pki: Pki, tmp_path: Path) -> None:
    stranger = make_pki(tmp_path, name="stranger")
    with tls_relay(server_address, pki) as relay:
        checked = _check(_tls_env(relay, stranger))
    assert checked.returncode == 1
    (line,) = checked.stderr.strip().splitlines()
    assert line.startswith(f"rath worker --check: cannot connect to Temporal at {relay}")
    assert "check TEMPORAL_TLS_SERVER_CA_CERT_PATH" in line


def test_mtls_needs_the_client_certificate(server_address: str, pki: Pki) -> None:
    with tls_relay(server_address, pki, require_client_cert=True) as relay:
        refused = _check(_tls_env(relay, pki))
        accepted = _check(
            _tls_env(
                relay,
                pki,
                TEMPORAL_TLS_CLIENT_CERT_PATH=str(pki.client_cert),
                TEMPORAL_TLS_CLIENT_KEY_PATH=str(pki.client_key),
            )
        )
    assert refused.returncode == 1
    (line,) = refused.stderr.strip().splitlines()
    assert "TEMPORAL_TLS_CLIENT_CERT_PATH" in line
    assert accepted.returncode == 0, accepted.stderr
    assert accepted.stdout.startswith(f"rath worker --check: {relay} namespace=default")


def test_a_missing_certificate_file_is_named(server_address: str, tmp_path: Path) -> None:
    env = dict(
        os.environ,
        TEMPORAL_ADDRESS=server_address,
        TEMPORAL_TLS_SERVER_CA_CERT_PATH=str(tmp_path / "nope.pem"),
    )
    checked = _check(env)
    assert checked.returncode == 1
    assert checked.stderr.strip() == (
        f"rath worker --check: cannot read {str(tmp_path / 'nope.pem')!r}, named by the "
        "TEMPORAL_TLS_* settings (or the profile's tls section): fix the path"
    )


def test_an_unreachable_address_is_named(rath_home: Path) -> None:
    checked = _check(dict(os.environ, TEMPORAL_ADDRESS="127.0.0.1:1"))
    assert checked.returncode == 1
    (line,) = checked.stderr.strip().splitlines()
    assert line.startswith("rath worker --check: cannot connect to Temporal at 127.0.0.1:1")
    assert "check TEMPORAL_ADDRESS" in line


def test_a_profile_file_selects_the_cluster(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile = tmp_path / "temporal.toml"
    profile.write_text(
        '[profile.default]\naddress = "127.0.0.1:1"\n\n'
        '[profile.prod]\naddress = "temporal.example:7233"\nnamespace = "prod"\n'
    )
    monkeypatch.delenv("TEMPORAL_ADDRESS", raising=False)
    monkeypatch.delenv("TEMPORAL_NAMESPACE", raising=False)
    monkeypatch.setenv("TEMPORAL_CONFIG_FILE", str(profile))
    assert Settings.from_env().address == "127.0.0.1:1"
    monkeypatch.setenv("TEMPORAL_PROFILE", "prod")
    settings = Settings.from_env()
    assert (settings.address, settings.namespace) == ("temporal.example:7233", "prod")
    monkeypatch.setenv("TEMPORAL_ADDRESS", "other:7233")  # Rath's variable wins
    assert Settings.from_env().address == "other:7233"
