"""``rath.session.persistence`` over the catalog: every agent run's session, from any process."""

from __future__ import annotations

import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from support import FAST, fake_provider

from rath import flow
from rath.runtime.runtime import shutdown_runtime
from rath.session import Session
from rath.session.persistence import (
    delete_session,
    list_persisted_sessions,
    load_session,
    prune_sessions,
)
from rath.settings import Settings
from rath.store import current_catalog
from rath.testing import FakeChatServer, gated, text_reply

WAIT = 30.0


def test_sessions_load_in_flight_and_finished_and_list_and_delete(rath_env: Settings) -> None:
    release = threading.Event()
    replies = [gated(text_reply("hello"), release, WAIT)]
    with FakeChatServer(replies) as server:
        agent = flow.Agent("Be brief.", provider=fake_provider(server), options=FAST)
        out = agent(Session.from_user_message("hi"))
        server.wait_for_requests(1, WAIT)
        flying = load_session(out.id)
        assert not flying.closed
        assert [r.payload["content"] for r in flying.chunk_table.rows] == ["hi"]  # so far
        release.set()
        out.synchronize()
    done = load_session(str(out.id))
    assert done.closed and done.path is None
    assert [r.payload["content"] for r in done.chunk_table.rows] == ["hi", "hello"]
    assert done.cumulative_usage is not None and done.cumulative_usage.total_tokens == 15
    assert done.header.parent_session_ids == out.parent_session_ids
    listed = {meta.id: meta for meta in list_persisted_sessions()}
    assert listed[out.id].closed and listed[out.id].chunk_count == 2
    created = [meta.created_at for meta in list_persisted_sessions()]
    assert created == sorted(created)  # oldest first
    # Another process, sharing only RATH_HOME, loads it too (Temporal not needed: it ended).
    code = (
        "from rath.session.persistence import load_session; "
        f"print(len(load_session({str(out.id)!r}).chunk_table.rows))"
    )
    other = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert other.stdout.strip() == "2"
    assert delete_session(out.id)
    assert current_catalog().get(out.id) is None
    assert not delete_session(out.id)


@pytest.fixture
def own_store(
    rath_env: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Settings]:
    """A store of this test's own, so pruning leaves other tests' catalog records alone."""
    monkeypatch.setenv("RATH_STORE_DIR", str(tmp_path / "store"))
    monkeypatch.setenv("RATH_TASK_QUEUE", f"prune-{uuid.uuid4().hex[:8]}")
    settings = Settings.from_env()
    yield settings
    shutdown_runtime(settings)


def test_prune_removes_old_finished_sessions_only(own_store: Settings) -> None:
    with FakeChatServer([text_reply("a")]) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=FAST)
        out = agent(Session.from_user_message("go")).synchronize()
    assert out.id not in prune_sessions(older_than=timedelta(days=30))
    assert current_catalog().get(out.id) is not None
    # RATH_HOME's session files are shared with this worker's earlier tests: they may go too.
    assert out.id in prune_sessions(older_than=timedelta(seconds=0))
    assert current_catalog().get(out.id) is None
