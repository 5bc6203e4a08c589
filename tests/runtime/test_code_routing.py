"""A worker only receives work it can run: two scripts with different code on one server.

Each script's in-process worker polls the shared queue and the queues of the classes it
registered (``rath/workflow/<Class>``), so a run orphaned by one script is never taken by
another. It waits until a worker with its class comes up, and queries from elsewhere say which
worker that is (and read what the run's history holds meanwhile).
"""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import threading

import pytest
from temporalio.client import Client, WorkflowFailureError
from workers import READY_TIMEOUT, WorkerProcess, with_tests_importable

import rath
from rath.session import LineageKind
from rath.settings import Settings
from rath.testing import FakeChatServer, RecordedRequest, function_handler

WAIT = 60.0


def _script(env: dict[str, str], class_name: str, base_url: str) -> subprocess.Popen[str]:
    code = f"import code_app; code_app.main({class_name!r}, {base_url!r})"
    return subprocess.Popen(
        [sys.executable, "-c", code],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_an_orphaned_run_waits_for_a_worker_with_its_class(
    rath_env: Settings, server_address: str, caplog: pytest.LogCaptureFixture
) -> None:
    pair_asked, release = threading.Event(), threading.Event()

    def model(request: RecordedRequest) -> str:
        asked = request.messages[-1]["content"]
        if asked == "pair":
            pair_asked.set()
            release.wait(WAIT)  # hold the first script's call until that script is gone
        return f"{asked} done"

    env = with_tests_importable(dict(os.environ))
    with FakeChatServer(function_handler(model)) as server:
        first = _script(env, "RoutedPair", server.base_url)
        assert first.stdout is not None
        run_id = first.stdout.readline().strip()
        assert run_id.startswith("rath-RoutedPair-"), run_id
        assert pair_asked.wait(WAIT)
        first.kill()  # Ctrl-C could not be cleaner: the run is orphaned mid-call
        first.wait(WAIT)

        other = _script(env, "RoutedSolo", server.base_url)
        out, err = other.communicate(timeout=WAIT)
        assert other.returncode == 0, err
        assert out.splitlines()[-1] == "solo done"
        assert "Nondeterminism" not in err and "WARN" not in err  # it never saw the other run

        with caplog.at_level(logging.WARNING, logger="rath.runtime"):
            partial = rath.run_graph(run_id, timeout=2)  # from history: no worker answers
        assert caplog.messages[-1] == (
            f"no worker answered for run {run_id!r} (task queue "
            f"'{rath_env.task_queue}/workflow/RoutedPair') within 2 s: only workers with the "
            "workflow 'RoutedPair' poll it: start one with `rath worker --workflows "
            "code_app:RoutedPair`, or run the script that defines it; the graph shown "
            "is what the run's history holds"
        )
        loops = [n for n in partial.nodes if n.lineage_kind is LineageKind.OP_SESSION_LOOP]
        assert [n.run_id is not None and n.run_id.startswith("rath-") for n in loops] == [True]
        assert partial.nodes[-1].run_id == run_id  # the forward's output, still to come

        release.set()
        with WorkerProcess(env, "--workflows", "code_app:RoutedPair"):
            asyncio.run(_finished(server_address, run_id))  # the orphan resumed and ended
            graph = rath.run_graph(run_id, timeout=READY_TIMEOUT)  # now answered
    assert {node.lineage_kind.value for node in graph.nodes} >= {"op_workflow"}
    asked = [r.messages[-1]["content"] for r in server.requests]
    assert asked.count("pair") == 2 and asked.count("solo") == 1  # the cut-off call, retried


async def _finished(address: str, run_id: str) -> None:
    client = await Client.connect(address)
    try:
        await asyncio.wait_for(client.get_workflow_handle(run_id).result(), WAIT)
    except WorkflowFailureError as exc:
        raise AssertionError(f"the resumed run failed: {exc.cause}") from exc
