"""Reading a run never needs a worker: show, follow, load, attach, the graph, the approvals.

A finished run is read from its history, the catalog and the store. A running run that no
worker takes (here: on a task queue no worker ever polled, so no 20 s poller window to wait
out) shows what its history holds, and one line names the worker to start; every command
exits within seconds, with no traceback.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from code_app import RoutedPair
from support import fake_provider
from temporal_cli import TemporalCli, until
from temporalio.client import Client
from workers import with_tests_importable

import rath
from rath import flow
from rath.backend.lease import Lease
from rath.errors import RunNotFoundError, WorkerUnavailableError
from rath.session import LineageKind, Session, attach, run_session_compress
from rath.session.persistence import load_session
from rath.settings import Settings
from rath.store import SessionRecord, current_catalog
from rath.testing import FakeChatServer, function_handler

WAIT = 60.0
SECONDS = 30.0
"""Each reading command, startup included, ends within this (about 5 s alone; 21 s was seen
with two suites sharing the 2 cores)."""


def _rath(env: dict[str, str], *args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    rath_cli = str(Path(sys.executable).with_name("rath"))
    started = time.monotonic()
    done = subprocess.run(
        [rath_cli, *args], env=env, capture_output=True, text=True, timeout=WAIT, check=False
    )
    return done, time.monotonic() - started


def _record_of(run_id: str) -> SessionRecord:
    return until(
        lambda: next((r for r in current_catalog() if r.workflow_id == run_id), None),
        WAIT,
        f"the catalog record of {run_id}",
    )


def test_a_finished_forward_reads_after_its_script_exited(rath_env: Settings) -> None:
    env = with_tests_importable(dict(os.environ))
    reply = function_handler(lambda request: f"{request.messages[-1]['content']} done")
    with FakeChatServer(reply) as server:
        code = f"import code_app; code_app.main('RoutedSolo', {server.base_url!r})"
        script = subprocess.run(
            [sys.executable, "-c", code],
            env=env,
            capture_output=True,
            text=True,
            timeout=WAIT,
            check=True,
        )
    run_id = script.stdout.split()[0]

    followed, seconds = _rath(env, "sessions", "follow", run_id)
    assert followed.returncode == 0, followed.stderr
    assert seconds < SECONDS and "Traceback" not in followed.stderr
    lines = followed.stdout.splitlines()
    assert lines[-1] == "run completed"
    assert any(line.endswith("] user        solo") for line in lines), lines
    assert any(line.endswith("] assistant   solo done") for line in lines), lines

    record = _record_of(run_id)
    shown, seconds = _rath(env, "sessions", "show", str(record.id))
    assert shown.returncode == 0, shown.stderr
    assert seconds < SECONDS
    assert shown.stdout.startswith(
        f"session {record.id}  (op_workflow, completed, agent RoutedSolo)"
    )

    graph = rath.run_graph(run_id, timeout=2)  # no worker has RoutedSolo: from history
    assert [n.lineage_kind for n in graph.nodes].count(LineageKind.OP_SESSION_LOOP) == 1
    assert graph.nodes[-1].cumulative_usage is not None  # the output, final
    assert rath.pending_approvals(run_id) == []  # a closed run waits for nothing
    assert load_session(record.id).closed
    assert attach(run_id).chunk_table.rows[-1].payload["content"] == "solo done"


def test_a_run_no_worker_takes_is_read_in_seconds(
    remote_env: dict[str, str], server_address: str
) -> None:
    cli = TemporalCli(server_address)
    env = with_tests_importable(remote_env)
    with FakeChatServer(function_handler(lambda request: "never asked")) as server:
        provider = fake_provider(server, api_key=None)
        lone = flow.Agent("x", provider=provider, name="lonely")(Session.from_user_message("hi"))
        tree = RoutedPair(provider)(Session.from_user_message("pair"))
        runs = [lone.run_id or "", tree.run_id or ""]
        for run_id in runs:
            query = f"WorkflowId = '{run_id}'"
            until(lambda q=query: cli.count(q) or None, WAIT, run_id)  # type: ignore[misc]
        current_catalog().put(SessionRecord(id=lone.id, workflow_id=runs[0], agent="lonely"))
        try:
            followed, seconds = _rath(env, "sessions", "follow", runs[0])
            assert followed.returncode == 0, followed.stderr
            assert seconds < SECONDS and "Traceback" not in followed.stderr
            assert "[lonely] user        hi" in followed.stdout  # its input, from history
            (line,) = [x for x in followed.stderr.splitlines() if "no worker answered" in x]
            assert line.startswith(f"rath: no worker answered for run {runs[0]!r} (task queue ")
            assert "within 2 s: start one with `rath worker`" in line

            shown, seconds = _rath(env, "sessions", "show", str(lone.id))
            assert shown.returncode == 0, shown.stderr
            assert seconds < SECONDS and "Traceback" not in shown.stderr
            assert "running" in shown.stdout.splitlines()[0]

            followed, seconds = _rath(env, "sessions", "follow", runs[1])
            assert followed.returncode == 0, followed.stderr
            assert seconds < SECONDS and "Traceback" not in followed.stderr
            assert "`rath worker --workflows code_app:RoutedPair`" in followed.stderr

            listed, seconds = _rath(env, "approvals", runs[1])
            assert listed.returncode == 1 and seconds < SECONDS
            assert (
                listed.stderr.strip()
                .splitlines()[-1]
                .startswith(f"rath approvals: no worker answered for run {runs[1]!r}")
            )
            with pytest.raises(WorkerUnavailableError):
                rath.pending_approvals(runs[1])
            graph = rath.run_graph(runs[1], timeout=2)
            assert [n.id for n in graph.nodes] == [tree.parent_session_ids[0], tree.id]
            assert graph.nodes[-1].lineage_kind is LineageKind.OP_WORKFLOW
            _attach_says_which_worker(env, runs[1])
        finally:
            for run_id in runs:
                cli.terminate(run_id, reason="test over")


def _attach_says_which_worker(env: dict[str, str], run_id: str) -> None:
    """A script attaching to the run, with no worker for it, says so in one line."""
    code = f"import rath.session as s; s.attach({run_id!r}).synchronize()"
    script = subprocess.Popen(
        [sys.executable, "-c", code], env=env, stderr=subprocess.PIPE, text=True
    )
    said: list[str] = []
    found = threading.Event()

    def read() -> None:
        assert script.stderr is not None
        for line in script.stderr:
            said.append(line)
            if "no worker answered" in line:
                found.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        assert found.wait(45), said
    finally:
        script.kill()
        script.wait(WAIT)
    line = next(line for line in said if "no worker answered" in line)
    assert line.startswith(f"rath: no worker answered for run {run_id!r}")
    assert "`rath worker --workflows code_app:RoutedPair`" in line


async def test_compressions_and_sandbox_closes_read_like_agent_runs(
    rath_env: Settings, client: Client, server_address: str
) -> None:
    cli = TemporalCli(server_address)
    env = dict(os.environ)
    with FakeChatServer(function_handler(lambda request: "the summary")) as server:
        compressed = await asyncio.to_thread(
            lambda: run_session_compress(
                Session.from_user_message("a long talk"),
                Session.from_agent_prompt("compress"),
                agent_provider=fake_provider(server),
            ).synchronize()
        )
    closed = f"rath-ops-close-{uuid.uuid4().hex[:8]}"  # run by this process's worker
    lease = Lease(sandbox_id=uuid.uuid4(), backend="local")
    queue = rath_env.task_queue
    await client.execute_workflow("rath.CloseSandbox", lease, id=closed, task_queue=queue)
    idle = f"rath-ops-close-{uuid.uuid4().hex[:8]}"  # on a queue of its own: no worker
    await client.start_workflow("rath.CloseSandbox", lease, id=idle, task_queue=idle)
    try:
        for run_id in (compressed.run_id or "", closed):
            followed, seconds = await asyncio.to_thread(_rath, env, "sessions", "follow", run_id)
            assert followed.returncode == 0, followed.stderr
            assert followed.stdout.splitlines()[-1] == "run completed" and seconds < SECONDS
            listed, _ = await asyncio.to_thread(_rath, env, "approvals", run_id)
            assert listed.stdout.strip() == "no tool calls are waiting for approval"
            await asyncio.to_thread(rath.run_graph, run_id, timeout=2)
        attached = await asyncio.to_thread(lambda: attach(compressed.run_id or "").synchronize())
        assert attached.id == compressed.id
        with pytest.raises(RunNotFoundError, match="produces no session"):
            await asyncio.to_thread(attach, closed)
        followed, seconds = await asyncio.to_thread(_rath, env, "sessions", "follow", idle)
        assert followed.returncode == 0 and seconds < SECONDS, followed.stderr
        assert f"rath: no worker answered for run {idle!r}" in followed.stderr
    finally:
        cli.terminate(idle, reason="test over")
