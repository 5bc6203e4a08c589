"""``rath worker --check``: the health check the compose workers run."""

from __future__ import annotations

import socket
import subprocess
import sys
import time


def _check(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rath.worker", "--check"],
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_check_passes_against_a_running_server(remote_env: dict[str, str]) -> None:
    done = _check(remote_env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("rath worker --check: ") and done.stdout.strip().endswith("ok")


def test_check_fails_fast_with_one_line_naming_the_setting(remote_env: dict[str, str]) -> None:
    with socket.socket() as probe:  # a free port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.monotonic()
    done = _check(remote_env | {"TEMPORAL_ADDRESS": f"127.0.0.1:{port}"})
    assert time.monotonic() - started < 15
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("rath worker --check: cannot connect to Temporal at 127.0.0.1:")
    assert "check TEMPORAL_ADDRESS" in line
