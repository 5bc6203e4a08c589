"""kill -9 of a worker mid-session: a new worker finishes the run with the same transcript."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import FAST, kinds, tool_bodies

from rath import flow
from rath._runtime.runtime import shutdown_runtime
from rath._runtime.settings import Settings
from rath.session import Session
from rath.testing import FakeChatServer, gated, text_reply, tool_call_reply

READY_TIMEOUT = 30.0


class WorkerProcess:
    """A ``python -m rath.worker`` subprocess, ready once it printed its banner."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rath.worker"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        banner: list[str] = []
        reader = threading.Thread(target=lambda: banner.append(self.proc.stdout.readline()))  # type: ignore[union-attr]
        reader.start()
        reader.join(READY_TIMEOUT)
        assert banner and banner[0].startswith("rath worker:"), banner

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=READY_TIMEOUT)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=READY_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def remote_env(
    rath_home: Path, server_address: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, str]]:
    """Settings for a client and separately started workers on the same server."""
    monkeypatch.setenv("TEMPORAL_ADDRESS", server_address)
    monkeypatch.setenv("RATH_TASK_QUEUE", f"crash-{uuid.uuid4().hex[:8]}")
    env = dict(os.environ)
    yield env
    shutdown_runtime(Settings.from_env())


def test_kill_9_worker_mid_session_then_restart_completes(
    remote_env: dict[str, str], tmp_path: Path
) -> None:
    gate = threading.Event()
    script = [
        tool_call_reply(("write_workspace_file", {"path": "notes.txt", "content": "hi"})),
        gated(text_reply("lost with the dead worker"), gate),
        text_reply("finished by the new worker"),
    ]
    options = FAST.model_copy(update={"llm_heartbeat_seconds": 2})
    first = WorkerProcess(remote_env)
    second: WorkerProcess | None = None
    try:
        with FakeChatServer(script) as server:
            # Remote mode: no key is handed over; the fake endpoint needs none.
            provider = flow.Provider(model="fake-model", base_url=server.base_url)
            agent = flow.Agent("x", provider=provider, options=options)
            out = agent(Session.from_user_message("go").to("local", spec=tmp_path))
            server.wait_for_requests(2, timeout=60)  # round 1 done, round 2 in flight
            first.kill()
            gate.set()
            second = WorkerProcess(remote_env)
            assert kinds(out) == ["user", "assistant", "tool_result", "assistant"]
            assert len(server.requests) == 3  # the lost round was retried once, nothing more
    finally:
        first.stop()
        if second is not None:
            second.stop()
    assert tool_bodies(out) == [{"bytes_written": 2}]
    assert out.chunk_table.rows[-1].payload["content"] == "finished by the new worker"
    assert (tmp_path / "notes.txt").read_text() == "hi"
