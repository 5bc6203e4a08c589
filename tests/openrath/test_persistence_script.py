"""OpenRath's persistence workflow end to end, even after Temporal forgot the runs.

``run_session_loop(..., persist=True)``; the run is then deleted from Temporal
(``temporal workflow delete``); a new process lists, loads, resumes and runs one more round.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time

import pytest
from support import FAST, fake_provider
from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from rath.runtime.devserver import temporal_binary
from rath.session import Session, run_session_loop
from rath.session.persistence import delete_session, session_file
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply

WAIT = 60.0
DELETION_WAIT = 180.0
RESUME = """
import sys
from rath import flow
from rath.session import run_session_loop
from rath.session.persistence import list_persisted_sessions, load_session
session_id, base_url = sys.argv[1], sys.argv[2]
assert session_id in {str(meta.id) for meta in list_persisted_sessions()}
saved = load_session(session_id)
assert saved.closed, saved
user, agent = saved.to_resumable_pair(agent_prompt="Carry on.")
provider = flow.Provider(model="m", base_url=base_url)
out = run_session_loop(user, agent, agent_provider=provider)
print([row.payload["content"] for row in out.chunk_table.rows])
"""


async def _deleted(address: str, run_id: str) -> None:
    """Wait (bounded) until the server has really deleted the run: it does so in the background,
    which took 30-50 s on the dev server here."""
    client = await Client.connect(address)
    deadline = time.monotonic() + DELETION_WAIT
    while True:
        try:
            await client.get_workflow_handle(run_id).describe()
        except RPCError as exc:
            if exc.status is RPCStatusCode.NOT_FOUND:
                return
            raise
        assert time.monotonic() < deadline, f"{run_id} was never deleted"
        await asyncio.sleep(0.1)  # deletion is asynchronous on the server; bounded poll


@pytest.mark.slow
def test_persist_list_load_resume_after_the_runs_are_gone(
    rath_env: Settings, server_address: str
) -> None:
    with FakeChatServer([text_reply("first answer")]) as server:
        out = run_session_loop(
            Session.from_user_message("hello"),
            Session.from_agent_prompt("Be brief."),
            agent_provider=fake_provider(server),
            options=FAST,
            persist=True,
        )
        out.synchronize()
    assert session_file(out.id).exists()  # complete before the output could be read
    assert out.run_id is not None
    deleted = subprocess.run(
        [
            str(temporal_binary()),
            "workflow",
            "delete",
            "--workflow-id",
            out.run_id,
            "--address",
            server_address,
            "--yes",
        ],
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert deleted.returncode == 0, deleted.stderr
    asyncio.run(_deleted(server_address, out.run_id))
    with FakeChatServer([text_reply("second answer")]) as server:
        resumed = subprocess.run(
            [sys.executable, "-c", RESUME, str(out.id), server.base_url],
            capture_output=True,
            text=True,
            timeout=WAIT * 2,
            check=False,
            env=dict(os.environ),
        )
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.strip().splitlines()[-1] == str(
        ["hello", "first answer", "second answer"]
    )
    # The data dir is the session's: leave no session file for other tests (prune sees them).
    assert delete_session(out.id)
