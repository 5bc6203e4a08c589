"""A run that has used up Temporal's update allowance: its follower waits and loses nothing.

Each poll of a follower is an update, and the server caps the updates of one run
(``history.maxTotalUpdates``, 2,000 by default). Here a server of this test's own sets the cap
to 6, and one streamed answer takes more polls than that. A follower that gave up on such a
run after its minute of reconnecting would miss the rest of it.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from streaming.helpers import Recorder, trickling_server
from support import FAST, kinds
from temporalio.client import Client
from wires import provider_for
from workers import WorkerProcess

from rath import flow
from rath.runtime import devserver
from rath.runtime import follow as _events
from rath.runtime.runtime import shutdown_runtime
from rath.session import Session
from rath.settings import Settings
from rath.testing import text_reply

MAX_UPDATES = 6


@pytest.fixture
def capped_server(tmp_path: Path) -> Iterator[str]:
    """A dev server whose runs take at most ``MAX_UPDATES`` updates; its address."""
    port, _ = devserver._pick_ports()
    cmd = devserver.dev_server_command(
        db_path=tmp_path / "capped.db",
        port=port,
        ui_port=0,
        search_attributes=devserver.DEFAULT_SEARCH_ATTRIBUTES,
        headless=True,
    )
    cmd += ["--dynamic-config-value", f"history.maxTotalUpdates={MAX_UPDATES}"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    address = f"127.0.0.1:{port}"
    try:
        assert devserver._run(
            devserver._wait_ready(
                address, lambda: proc.poll() is None, devserver._listener(proc.pid, address), 30
            )
        ), "the capped dev server did not start"
        yield address
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_a_follower_refused_more_polls_waits_and_misses_nothing(
    capped_server: str, rath_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Failures other than the cap still give up after the reconnect window: shortened here
    # (from a minute) so that the run outlives it after hitting the cap.
    monkeypatch.setattr(_events, "_RECONNECT_SECONDS", 0.5)
    monkeypatch.setenv("TEMPORAL_ADDRESS", capped_server)
    monkeypatch.setenv("RATH_TASK_QUEUE", "capped")
    settings = Settings.from_env()
    worker = WorkerProcess(dict(os.environ))  # a remote server: no worker in this process
    answer = "written a character at a time, past the cap. " * 4
    seen = Recorder()
    try:
        with worker, trickling_server([text_reply(answer)], pace=0.02) as server:  # about 4 s
            # No key: a key given here would have to travel to the worker in history.
            provider = provider_for("openai", server.base_url, api_key=None)
            agent = flow.Agent("x", provider=provider, options=FAST, on_event=seen)
            out = agent(Session.from_user_message("go"))
            assert kinds(out) == ["user", "assistant"]
    finally:
        shutdown_runtime(settings)
    assert seen.fold.rounds[1].content == answer
    assert [e.offset for e in seen.events] == list(range(len(seen.events)))
    assert out.run_id is not None
    assert asyncio.run(_updates(capped_server, out.run_id)) == MAX_UPDATES  # the cap was hit


async def _updates(address: str, run_id: str) -> int:
    from temporalio.api.enums.v1 import EventType

    client = await Client.connect(address)
    history = await client.get_workflow_handle(run_id).fetch_history()
    accepted = EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED
    return sum(1 for event in history.events if event.event_type == accepted)
