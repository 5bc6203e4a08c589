"""Telemetry switched on where no collector takes the data: scripts, ``rath demo`` and
``rath worker`` (real subprocesses) still run, say so in one line, and never wait on it.

``RATH_OTEL=1`` with no endpoint used to crash every worker (``ValueError ... must be a
ReplaySafeTracerProvider``); a collector that is down used to cost ~15 s at exit and 16 lines
of exporter errors.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from subprocess import CompletedProcess

import pytest
from otlp_receiver import OtlpReceiver
from workers import WorkerProcess, with_tests_importable

from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply

SCRIPT = """
import sys
from support import FAST
from rath import flow
from rath.session import Session

if sys.argv[2] == "own-provider":  # the process set up OpenTelemetry itself, not replay-safe
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    trace.set_tracer_provider(TracerProvider())
provider = flow.Provider(model="fake-model", base_url=sys.argv[1], api_key_env="RATH_TEST_KEY")
out = flow.Agent("x", provider=provider, options=FAST)(Session.from_user_message("hi"))
print(out.chunk_table.rows[-1].payload["content"], flush=True)
"""
EXPORTER_NOISE = ("Transient error", "Failed to export", "OTLP metric export failed", "Traceback")
NO_SPANS = "no spans are exported"
RATH_DEMO = [str(Path(sys.executable).with_name("rath")), "demo"]


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _env(settings: Settings, **extra: str) -> dict[str, str]:
    env = with_tests_importable(dict(os.environ))
    for name in ("RATH_OTEL", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_SDK_DISABLED"):
        env.pop(name, None)
    return env | {"RATH_HOME": str(settings.home), "RATH_TEST_KEY": "test-key", **extra}


def _down_collector() -> dict[str, str]:
    """A collector that refuses connections, asked often (so many exports fail in one run)."""
    return {
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{_closed_port()}",
        "OTEL_BSP_SCHEDULE_DELAY": "50",
        "OTEL_METRIC_EXPORT_INTERVAL": "100",
    }


def _run(args: list[str], env: dict[str, str], cwd: Path | None = None) -> CompletedProcess[str]:
    return subprocess.run(
        args, env=env, cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def _telemetry_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if "telemetry" in line]


def _assert_quiet(output: str, expected: str) -> None:
    """At most one telemetry line, the expected one, and none of the exporters' own noise."""
    lines = _telemetry_lines(output)
    assert len(lines) <= 1 and all(expected in line for line in lines), output
    assert not [noise for noise in EXPORTER_NOISE if noise in output], output


@pytest.mark.parametrize("setup", ["no-endpoint", "own-provider"])
def test_a_script_with_rath_otel_and_no_collector_runs(rath_env: Settings, setup: str) -> None:
    with FakeChatServer([text_reply("hello")]) as server:
        script = _run(
            [sys.executable, "-c", SCRIPT, server.base_url, setup], _env(rath_env, RATH_OTEL="1")
        )
    assert (script.returncode, script.stdout.strip()) == (0, "hello"), script.stderr
    expected = NO_SPANS if setup == "no-endpoint" else "set its own tracer provider"
    assert [expected in line for line in _telemetry_lines(script.stderr)] == [True]
    _assert_quiet(script.stderr, expected)


def test_a_down_collector_costs_a_script_one_line_and_no_wait(rath_env: Settings) -> None:
    with FakeChatServer([text_reply("hello")]) as server:
        script = subprocess.Popen(
            [sys.executable, "-c", SCRIPT, server.base_url, "otlp"],
            env=_env(rath_env, **_down_collector()),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert script.stdout is not None
            answer = script.stdout.readline().strip()
            answered = time.monotonic()
            _, stderr = script.communicate(timeout=60)
            exited = time.monotonic()
        finally:
            if script.poll() is None:
                script.kill()
                script.wait(30)
    assert (script.returncode, answer) == (0, "hello"), stderr
    # The exporters used to retry the dead collector for ~13 s at exit.
    assert exited - answered < 4.0, stderr
    _assert_quiet(stderr, "does not take exports")


def test_rath_demo_exports_its_run_before_it_exits(rath_env: Settings, tmp_path: Path) -> None:
    # `rath` leaves with os._exit: the spans of the in-process worker are flushed first.
    with OtlpReceiver() as receiver:
        env = _env(rath_env, OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint)
        demo = _run(RATH_DEMO, env, tmp_path)
        assert demo.returncode == 0, demo.stderr
        names = {span["name"] for span in receiver.spans}
    assert any(name.startswith("invoke_agent ") for name in names), names
    assert any(name.startswith("chat ") for name in names), names
    _assert_quiet(demo.stderr, "")


@pytest.mark.parametrize("collector", ["none", "down"])
def test_rath_demo_with_telemetry_and_no_collector(
    rath_env: Settings, tmp_path: Path, collector: str
) -> None:
    extra = {"RATH_OTEL": "1"} if collector == "none" else _down_collector()
    started = time.monotonic()
    demo = _run(RATH_DEMO, _env(rath_env, **extra), tmp_path)
    assert demo.returncode == 0, demo.stderr
    assert "[rath demo model]" in demo.stdout
    assert time.monotonic() - started < 60
    _assert_quiet(demo.stderr, NO_SPANS if collector == "none" else "does not take exports")


@pytest.mark.parametrize("collector", ["none", "down"])
def test_rath_worker_with_telemetry_and_no_collector(
    remote_env: dict[str, str], collector: str
) -> None:
    extra = {"RATH_OTEL": "1"} if collector == "none" else _down_collector()
    env = with_tests_importable(remote_env) | {"RATH_TEST_KEY": "test-key", **extra}
    with FakeChatServer([text_reply("hello")]) as server:
        worker = WorkerProcess(env)
        try:
            client = [sys.executable, "-c", SCRIPT, server.base_url, "client"]
            script = _run(client, with_tests_importable(remote_env))  # telemetry off
            assert (script.returncode, script.stdout.strip()) == (0, "hello"), script.stderr
            assert len(server.requests) == 1  # the worker ran the call
        finally:
            stopping = time.monotonic()
            worker.stop()
            stopped = time.monotonic()
    assert worker.proc.stdout is not None
    output = "".join(worker.lines) + worker.proc.stdout.read()
    assert worker.proc.returncode == 0, output
    assert stopped - stopping < 10.0, output
    _assert_quiet(output, NO_SPANS if collector == "none" else "does not take exports")
    if collector == "none":
        assert NO_SPANS in output
