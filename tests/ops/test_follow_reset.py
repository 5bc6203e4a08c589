"""A reset run is followed: every waiting client ends with the new run's result.

``temporal workflow reset`` terminates the run it resets and carries on in a new run under
the same workflow id. A script waiting on the agent's lazy session, and ``rath sessions
follow`` watching it from another process, both follow the workflow id to that new run and
end with its outcome (not ``failed: terminated``); so does a streaming run's output, whose
events are followed into the new run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from temporal_cli import TemporalCli, until

from rath.settings import Settings
from rath.store import current_catalog
from rath.testing import FakeChatServer, RecordedRequest, function_handler

WAIT = 60.0
SCRIPT = """
from rath import flow
from rath.contracts.runs import LoopOptions
from rath.session import Session
options = LoopOptions(llm_retry_base_seconds=0.1, llm_heartbeat_seconds=1)
events = []
agent = flow.Agent("x", provider=flow.Provider(model="m", base_url={url!r}), options=options,
                   name="redone", on_event=events.append if {stream!r} else None)
out = agent(Session.from_user_message("hi"))
print(out.id, out.run_id, flush=True)
print(out.chunk_table.rows[-1].payload["content"], flush=True)
"""


@pytest.mark.parametrize("stream", [False, True], ids=["lazy", "streaming"])
def test_a_waiting_script_and_a_follower_end_with_the_reset_runs_result(
    rath_env: Settings, server_address: str, stream: bool
) -> None:
    cli = TemporalCli(server_address)
    first_asked, release = threading.Event(), threading.Event()
    calls: list[int] = []

    def model(request: RecordedRequest) -> str:
        calls.append(1)
        if len(calls) == 1:
            first_asked.set()
            release.wait(WAIT)  # the old run's call: it never gets an answer that counts
            return "before reset"
        return "after reset"

    rath_cli = str(Path(sys.executable).with_name("rath"))
    with FakeChatServer(function_handler(model)) as server:
        script = subprocess.Popen(
            [sys.executable, "-c", SCRIPT.format(url=server.base_url, stream=stream)],
            env=dict(os.environ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        follower: subprocess.Popen[str] | None = None
        try:
            assert script.stdout is not None
            session_id, run_id = script.stdout.readline().split()
            assert first_asked.wait(WAIT)
            old_run = cli.run_id(run_id)
            follower = subprocess.Popen(
                [rath_cli, "sessions", "follow", run_id],
                env=dict(os.environ),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            until(lambda: current_catalog().get(session_id), WAIT, "the run's first record")
            cli.reset(run_id, type="FirstWorkflowTask", reason="the operator redoes it")
            out, err = script.communicate(timeout=WAIT)
            followed, follow_err = follower.communicate(timeout=WAIT)
        finally:
            release.set()
            script.kill()
            if follower is not None:
                follower.kill()
    assert script.returncode == 0, err
    # (the core may log, on stdout, that the old run's cancelled call completed anyway)
    assert out.splitlines()[0] == "after reset", out
    assert "Traceback" not in err, err
    assert cli.status(run_id, old_run) == "TERMINATED"
    assert cli.status(run_id) == "COMPLETED" and cli.run_id(run_id) != old_run
    assert follower.returncode == 0, follow_err
    assert followed.splitlines()[-1] == "run completed"
    assert "[redone] assistant   after reset" in followed
    record = current_catalog().get(session_id)
    assert record is not None and record.status == "completed"
