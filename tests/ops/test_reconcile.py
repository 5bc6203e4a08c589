"""The catalog says what Temporal says, even of runs that ended without running any code.

``temporal workflow terminate``, a timeout, or a run Temporal forgot leave a record saying
``running``; reading the catalog (``rath sessions ls|show``, ``load_session``) or
``rath sessions reconcile`` brings it up to date from visibility, with the reason. When
Temporal cannot be reached, the catalog still reads, and one line says it was not checked.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import uuid
from datetime import timedelta
from pathlib import Path

from support import FAST, fake_provider
from temporal_cli import TemporalCli, until
from temporalio.client import Client

from rath import flow
from rath.errors import RunFailedError
from rath.session import Session
from rath.session.persistence import load_session
from rath.settings import Settings
from rath.store import SessionRecord, current_catalog
from rath.testing import FakeChatServer, RecordedRequest, function_handler

WAIT = 60.0


def _rath(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    rath = str(Path(sys.executable).with_name("rath"))
    return subprocess.run(
        [rath, *args], env=env, capture_output=True, text=True, timeout=WAIT, check=False
    )


def test_a_terminated_agent_run_reads_as_terminated_with_its_reason(
    rath_env: Settings, server_address: str
) -> None:
    asked, release = threading.Event(), threading.Event()

    def model(request: RecordedRequest) -> str:
        asked.set()
        release.wait(WAIT)
        return "too late"

    cli = TemporalCli(server_address)
    with FakeChatServer(function_handler(model)) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=FAST, name="stopped")
        out = agent(Session.from_user_message("hi"))
        assert asked.wait(WAIT)
        until(lambda: current_catalog().get(out.id), WAIT, "the run's first record")
        cli.terminate(out.run_id or "", reason="the operator stops it")
        terminated = time.monotonic()
        shown = _rath(dict(os.environ), "sessions", "show", str(out.id))
        release.set()
    assert shown.returncode == 0, shown.stderr
    assert time.monotonic() - terminated < 30
    lines = shown.stdout.splitlines()
    assert lines[0] == f"session {out.id}  (op_session_loop, terminated, agent stopped)"
    assert lines[2] == "reason: terminated: the operator stops it"
    record = current_catalog().get(out.id)
    assert record is not None and record.status == "terminated" and record.closed is not None
    try:
        out.synchronize()
        raise AssertionError("a terminated run has no result")
    except RunFailedError as exc:
        assert str(exc) == f"run {out.run_id!r} was terminated: the operator stops it"


async def test_reconcile_brings_every_open_record_up_to_date(
    rath_env: Settings, client: Client, server_address: str
) -> None:
    cli = TemporalCli(server_address)
    queue = f"nobody-{uuid.uuid4().hex[:8]}"  # no worker: no run below writes its own record

    async def start(name: str, **options: object) -> str:
        workflow_id = f"rath-ops-{name}-{uuid.uuid4().hex[:8]}"
        await client.start_workflow("rath.SessionLoop", id=workflow_id, task_queue=queue, **options)
        return workflow_id

    runs = {
        "terminated": await start("terminated"),
        "timed_out": await start("timed", execution_timeout=timedelta(seconds=1)),
        "running": await start("running"),
        "unknown": f"rath-ops-forgotten-{uuid.uuid4().hex[:8]}",
    }
    records = {what: SessionRecord(id=uuid.uuid4(), workflow_id=run) for what, run in runs.items()}
    for record in records.values():
        current_catalog().put(record)
    cli.terminate(runs["terminated"], reason="cleaning up")
    cli.wait_status(runs["timed_out"], {"TIMED_OUT"})

    done = _rath(dict(os.environ), "sessions", "reconcile")
    assert done.returncode == 0, done.stderr
    after = {what: current_catalog().get(record.id) for what, record in records.items()}
    assert {what: r.status if r else None for what, r in after.items()} == {
        "terminated": "terminated",
        "timed_out": "timed_out",
        "running": "running",
        "unknown": "unknown",
    }
    assert after["terminated"] and after["terminated"].error == "terminated: cleaning up"
    assert after["timed_out"] and after["timed_out"].error == (
        "timed out (the run's execution or run timeout passed)"
    )
    assert after["unknown"] and "Temporal no longer has run" in (after["unknown"].error or "")
    assert f"{records['terminated'].id}  {runs['terminated']}  terminated" in done.stdout
    assert str(records["running"].id) not in done.stdout  # still running: unchanged
    cli.terminate(runs["running"], reason="done with it")
    loaded = until(
        lambda: load_session(records["running"].id).closed or None, WAIT, "load to reconcile"
    )
    assert loaded  # loading reconciles too


def test_many_running_records_are_checked_in_a_few_list_queries(rath_env: Settings) -> None:
    # 250 records of runs Temporal never had: three visibility queries, then one describe
    # each (a run may be too new for visibility), and every one ends "unknown".
    records = [
        SessionRecord(id=uuid.uuid4(), workflow_id=f"rath-gone-{i}-{uuid.uuid4().hex[:6]}")
        for i in range(250)
    ]
    for record in records:
        current_catalog().put(record)
    listed = _rath(dict(os.environ), "sessions", "ls", "--status", "unknown", "--json")
    assert listed.returncode == 0, listed.stderr
    shown = {row["id"] for row in json.loads(listed.stdout)}
    assert {str(r.id) for r in records} <= shown


def test_the_catalog_reads_without_temporal_and_says_so(rath_env: Settings) -> None:
    record = SessionRecord(id=uuid.uuid4(), workflow_id="rath-somewhere-1", agent="away")
    current_catalog().put(record)
    env = dict(os.environ, TEMPORAL_ADDRESS="127.0.0.1:9")  # nothing listens there
    started = time.monotonic()
    listed = _rath(env, "sessions", "ls", "--agent", "away")
    assert listed.returncode == 0, listed.stderr
    assert time.monotonic() - started < 20
    assert f"{record.id}" in listed.stdout and "running" in listed.stdout
    (note,) = [line for line in listed.stderr.splitlines() if line.startswith("rath: the catalog")]
    assert note.startswith("rath: the catalog is shown as last recorded: ")
    assert "Traceback" not in listed.stderr
