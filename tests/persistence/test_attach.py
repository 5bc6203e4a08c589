"""``rath.session.attach``: pick a run back up from another process, lazily, by either id."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import uuid

import pytest
from support import FAST, fake_provider

from rath import flow
from rath.errors import RunFailedError, RunNotFoundError
from rath.session import LineageKind, Session, attach, user_text_chunk
from rath.settings import Settings
from rath.store import SessionRecord, current_catalog, current_store
from rath.testing import FakeChatServer, RecordedRequest, function_handler

WAIT = 60.0
SCRIPT = """
import os
from rath import flow
from rath.contracts.runs import LoopOptions
from rath.session import Session
options = LoopOptions(llm_retry_base_seconds=0.1, llm_heartbeat_seconds=2)
agent = flow.Agent("x", provider=flow.Provider(model="m", base_url={url!r}), options=options)
out = agent(Session.from_user_message("hi"))
print(out.id, out.run_id, flush=True)
import time; time.sleep(600)  # killed by the test while the run waits on the model
"""


def test_a_run_left_by_a_killed_script_is_attached_by_session_or_run_id(
    rath_env: Settings,
) -> None:
    asked, release = threading.Event(), threading.Event()

    def model(request: RecordedRequest) -> str:
        asked.set()
        release.wait(WAIT)
        return "hello again"

    with FakeChatServer(function_handler(model)) as server:
        script = subprocess.Popen(
            [sys.executable, "-c", SCRIPT.format(url=server.base_url)],
            stdout=subprocess.PIPE,
            text=True,
            env=dict(os.environ),
        )
        assert script.stdout is not None
        session_id, run_id = script.stdout.readline().split()
        assert asked.wait(WAIT)
        script.kill()  # like Ctrl-C: the run goes on, its caller is gone
        script.wait(WAIT)
        by_session = attach(session_id)
        by_run = attach(run_id)
        assert by_session.pending and by_run.pending
        assert str(by_session.id) == session_id and by_run.id == by_session.id
        assert by_session.lineage_kind is LineageKind.OP_SESSION_LOOP
        release.set()
        rows = by_session.chunk_table.rows  # this process's worker finishes the run
    assert [r.payload["content"] for r in rows] == ["hi", "hello again"]
    assert by_run.synchronize().usage == by_session.usage


def test_a_finished_session_outlives_its_run(rath_env: Settings) -> None:
    root = current_store().seal(Session.from_rows([user_text_chunk("kept")]).table)
    record = SessionRecord(
        id=uuid.uuid4(), status="completed", root=root, workflow_id="rath-gone-123"
    )
    current_catalog().put(record)
    session = attach(record.id)  # Temporal no longer has rath-gone-123
    assert not session.pending
    assert [r.payload["content"] for r in session.chunk_table.rows] == ["kept"]


def test_unknown_ids_and_failed_runs_say_so(rath_env: Settings) -> None:
    with pytest.raises(RunNotFoundError, match="no session or run 'rath-nothing'"):
        attach("rath-nothing")
    with FakeChatServer([]) as server:  # no scripted reply: every request fails
        options = FAST.model_copy(update={"llm_max_attempts": 1})
        agent = flow.Agent("x", provider=fake_provider(server), options=options)
        out = agent(Session.from_user_message("go"))
        with pytest.raises(RunFailedError):
            out.synchronize()
    with pytest.raises(RunFailedError, match=out.run_id or "?"):
        attach(out.run_id or "").synchronize()
