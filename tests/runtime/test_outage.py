"""A client waiting on a run rides out a Temporal outage longer than the SDK's own retries.

The dev server here is this test's own, on a database file, SIGKILLed and restarted on the
same file and port. The downtime is the scenario under test (longer than the ~10 s after
which the SDK's client gave up before), not a synchronisation.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import FAST, fake_provider
from workers import WorkerProcess

from rath import flow
from rath.errors import RunUnreachableError
from rath.runtime import devserver
from rath.runtime.runtime import shutdown_runtime
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, RecordedRequest, function_handler

DOWNTIME = 14.0
WAIT = 60.0


class OwnServer:
    """A dev server on a fixed port and database file that can be killed and restarted."""

    def __init__(self, directory: Path) -> None:
        self.port, _ = devserver._pick_ports()
        self.db = directory / "outage.db"
        self.address = f"127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        cmd = devserver.dev_server_command(
            db_path=self.db,
            port=self.port,
            ui_port=0,
            search_attributes=devserver.DEFAULT_SEARCH_ATTRIBUTES,
            headless=True,
        )
        proc = self.proc = subprocess.Popen(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        alive = devserver._listener(proc.pid, self.address)
        ready = devserver._wait_ready(self.address, lambda: proc.poll() is None, alive, 30)
        assert devserver._run(ready), "the test's dev server did not start"

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(WAIT)


@pytest.fixture
def own_server(
    tmp_path: Path, rath_home: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[OwnServer]:
    server = OwnServer(tmp_path)
    server.start()
    monkeypatch.setenv("TEMPORAL_ADDRESS", server.address)
    monkeypatch.setenv("RATH_TASK_QUEUE", f"outage-{uuid.uuid4().hex[:8]}")
    yield server
    shutdown_runtime(Settings.from_env())
    if server.proc is not None and server.proc.poll() is None:
        server.kill()


def test_a_waiting_client_gets_its_session_across_an_outage(own_server: OwnServer) -> None:
    asked, back = threading.Event(), threading.Event()

    def model(request: RecordedRequest) -> str:
        asked.set()
        back.wait(WAIT)  # answer once the server is back
        return "still here"

    with WorkerProcess(dict(os.environ)), FakeChatServer(function_handler(model)) as server:
        agent = flow.Agent("x", provider=fake_provider(server, api_key=None), options=FAST)
        out = agent(Session.from_user_message("hi"))
        assert asked.wait(WAIT)
        waiting = threading.Thread(target=out.synchronize)
        waiting.start()  # the client waits on the result through the outage
        own_server.kill()
        time.sleep(DOWNTIME)  # the outage itself (see the module docstring)
        own_server.start()
        back.set()
        waiting.join(WAIT * 2)
        assert not waiting.is_alive()
        assert out.chunk_table.rows[-1].payload["content"] == "still here"


def test_a_client_gives_up_after_its_window_naming_the_run(
    own_server: OwnServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATH_CLIENT_OUTAGE_SECONDS", "1")
    asked, done = threading.Event(), threading.Event()

    def model(request: RecordedRequest) -> str:
        asked.set()
        done.wait(WAIT)  # no answer while the test runs
        return "late"

    with WorkerProcess(dict(os.environ)), FakeChatServer(function_handler(model)) as server:
        agent = flow.Agent("x", provider=fake_provider(server, api_key=None), options=FAST)
        out = agent(Session.from_user_message("hi"))
        assert asked.wait(WAIT)
        own_server.kill()
        try:
            with pytest.raises(RunUnreachableError) as info:
                out.synchronize()
        finally:
            done.set()
    assert info.value.workflow_id == out.run_id
    assert f"rath.session.attach({out.run_id!r})" in str(info.value)
    assert "the run may still be going" in str(info.value)
