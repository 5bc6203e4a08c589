"""Runs write the session catalog: a record when they start, updated when they end."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from support import FAST, fake_provider

from rath import flow
from rath.errors import RunFailedError
from rath.session import Session
from rath.settings import Settings
from rath.store import current_catalog, current_store
from rath.testing import FakeChatServer, error_reply, gated, text_reply

WAIT = 30.0


def test_a_run_is_catalogued_while_running_and_when_done(
    rath_env: Settings, tmp_path: Path
) -> None:
    release = threading.Event()
    with FakeChatServer([gated(text_reply("hello"), release, WAIT)]) as server:
        provider = fake_provider(server)
        agent = flow.Agent("Be brief.", provider=provider, options=FAST, name="greeter")
        user = Session.from_user_message("hi").to("local", spec=tmp_path)
        out = agent(user)
        server.wait_for_requests(1, WAIT)  # the run is in flight: its start is recorded
        running = current_catalog().get(out.id)
        assert running is not None and running.status == "running"
        assert running.closed is None and running.root is None
        release.set()
        out.synchronize()
    record = current_catalog().get(out.id)
    assert record is not None
    assert (record.status, record.kind, record.operator, record.agent) == (
        "completed",
        "op_session_loop",
        "run_session_loop",
        "greeter",
    )
    assert record.parents == out.parent_session_ids
    assert record.workflow_id == out.run_id
    assert record.created == running.created and record.closed is not None
    assert record.usage["total_tokens"] == out.usage.total_tokens  # type: ignore[union-attr]
    assert record.placement is not None and record.placement["spec"]["working_dir"] == str(tmp_path)
    assert record.root is not None
    rows = current_store().load_rows(out.table)
    assert [r.payload["content"] for r in rows] == ["hi", "hello"]


def test_a_failed_run_is_catalogued_as_failed(rath_env: Settings) -> None:
    with FakeChatServer([error_reply(400, "bad request: messages")]) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=FAST)
        out = agent(Session.from_user_message("go"))
        with pytest.raises(RunFailedError):
            out.synchronize()
    record = current_catalog().get(out.id)
    assert record is not None and record.status == "failed"
    assert record.error is not None and "HTTP 400" in record.error
