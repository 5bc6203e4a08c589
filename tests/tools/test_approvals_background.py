"""An approval given after the script that started the run exited: ``rath server --with-worker``.

The script's in-process worker dies with it, and ``rath approve`` runs none of its own (one
would take the released call and die with the command). So with no worker the command says,
in one line, which worker must run, and records nothing; with a worker started beside the
server the same command's answer is taken and the run finishes.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

from temporalio.client import Client
from workers import with_tests_importable

from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply, tool_call_reply

WAIT = 60.0
STARTER = """
import os, time
from tool_app import add
import rath
from rath import flow
from rath.contracts.runs import LoopOptions
from rath.session import Session
options = LoopOptions(llm_retry_base_seconds=0.1, tool_heartbeat_seconds=2)
provider = flow.Provider(model="fake-model", base_url={url!r})
agent = flow.Agent("Add.", provider=provider, tools=[add], tool_policy={{"add": "ask"}},
                   options=options)
out = agent(Session.from_user_message("1+2"))
deadline = time.monotonic() + 60
while not rath.pending_approvals(out):
    assert time.monotonic() < deadline
    time.sleep(0.05)
(waiting,) = rath.pending_approvals(out)
print(out.run_id, waiting.call_id, flush=True)
os._exit(0)  # gone, like a script closed while its run waits for a person
"""


def _rath(*args: str) -> list[str]:
    return [str(Path(sys.executable).with_name("rath")), *args]


def test_an_answer_given_after_the_script_exited_runs_on_a_server_side_worker(
    rath_env: Settings, server_address: str
) -> None:
    env = with_tests_importable(dict(os.environ))
    script = [tool_call_reply(("add", {"a": 1, "b": 2})), text_reply("3")]
    with FakeChatServer(script) as server:
        started = subprocess.run(
            [sys.executable, "-c", STARTER.format(url=server.base_url)],
            env=env,
            capture_output=True,
            text=True,
            timeout=WAIT,
            check=True,
        )
        run_id, call_id = started.stdout.split()
        unanswered = _approve(env, run_id, call_id)
        assert unanswered.returncode == 1, unanswered.stderr
        (line,) = [x for x in unanswered.stderr.splitlines() if not x.startswith("rath: using")]
        assert line.startswith(f"rath approve: no worker answered for run {run_id!r}"), line
        assert line.endswith(
            "start one with `rath worker` (or run any Rath script on the embedded default)"
        ), line
        worker = subprocess.Popen(
            _rath("server", "--with-worker", "--tools", "tool_app:add"),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            answered = _approve(env, run_id, call_id)
            assert answered.returncode == 0, answered.stderr
            assert f"approved {call_id}" in answered.stdout
            assert "goes on once a worker" not in answered.stderr  # the worker took the call
            result = asyncio.run(_result(server_address, run_id))
        finally:
            worker.send_signal(signal.SIGINT)
            worker.wait(WAIT)
        assert len(server.requests) == 2  # the model saw the tool's answer
    assert result["parent_session_ids"]  # the run finished (its output session)


def _approve(env: dict[str, str], run_id: str, call_id: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        _rath("approve", run_id, call_id),
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )


async def _result(address: str, run_id: str) -> dict[str, object]:
    client = await Client.connect(address)
    answer = await asyncio.wait_for(client.get_workflow_handle(run_id).result(), WAIT)
    assert isinstance(answer, dict)
    return answer
