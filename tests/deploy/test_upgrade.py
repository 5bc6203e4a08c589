"""Safe upgrades: a session started on worker version v1 finishes on v2 (worker versioning).

The procedure of docs/operators.md ("Upgrade"), against the real dev server: workers join a
Temporal worker deployment (``RATH_DEPLOYMENT_NAME``, ``RATH_BUILD_ID``) and promote their
version (``RATH_SET_CURRENT_VERSION=1``). A session waits for an approval on v1; v1 stops,
v2 starts and becomes current, the approval is given, and the session ends on v2 (the
default ``auto_upgrade`` behaviour). Its history, written by both versions, replays against
the current code.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from typing import TypeVar

import pytest
from support import FAST, tool_bodies
from temporalio.client import Client
from temporalio.worker import Replayer
from tool_app import add
from workers import WorkerProcess, with_tests_importable

import rath
from rath import flow
from rath.errors import ConfigError
from rath.plugin import RathPlugin
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply, tool_call_reply

T = TypeVar("T")
WAIT = 30.0


def eventually(probe: Callable[[], T], timeout: float = WAIT) -> T:
    deadline = time.monotonic() + timeout
    while not (value := probe()):
        if time.monotonic() > deadline:
            raise AssertionError(f"nothing after {timeout}s")
        time.sleep(0.05)
    return value


async def _build_id_and_replay(address: str, run_id: str) -> str:
    """The build id the run last ran on; and replay its history against the current code."""
    client = await Client.connect(address)
    handle = client.get_workflow_handle(run_id)
    described = await handle.describe()
    info = described.raw_description.workflow_execution_info.versioning_info
    history = await handle.fetch_history()
    replayer = Replayer(workflows=[], plugins=[RathPlugin(settings=Settings.from_env())])
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is None, result.replay_failure
    return info.deployment_version.build_id


def test_a_waiting_session_moves_from_v1_to_v2(
    remote_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    deployment = f"rath-{uuid.uuid4().hex[:8]}"
    base = with_tests_importable(remote_env) | {
        "RATH_DEPLOYMENT_NAME": deployment,
        "RATH_SET_CURRENT_VERSION": "1",
    }
    script = [tool_call_reply(("add", {"a": 1, "b": 2})), text_reply("3")]
    v2: WorkerProcess | None = None
    with (
        FakeChatServer(script) as server,
        WorkerProcess(base | {"RATH_BUILD_ID": "v1"}, "--tools", "tool_app:add") as v1,
    ):
        line = v1.wait_for_line("rath worker: ")
        assert f"{deployment}.v1 (auto_upgrade) is the current version" in line
        agent = flow.Agent(
            "Add.",
            provider=flow.Provider(model="fake-model", base_url=server.base_url),
            tools=[add],
            tool_policy={"add": "ask"},
            options=FAST,
        )
        out = agent(Session.from_user_message("1+2"))
        (waiting,) = eventually(lambda: rath.pending_approvals(out))
        assert out.run_id is not None
        address = remote_env["TEMPORAL_ADDRESS"]
        assert asyncio.run(_build_id_and_replay(address, out.run_id)) == "v1"

        v1.stop()  # the old version is gone while the session waits
        try:
            v2 = WorkerProcess(base | {"RATH_BUILD_ID": "v2"}, "--tools", "tool_app:add")
            line = v2.wait_for_line("rath worker: ")
            assert f"{deployment}.v2 (auto_upgrade) is the current version" in line
            rath.approve(out, waiting.call_id)
            assert tool_bodies(out) == [3]
            assert out.chunk_table.rows[-1].payload["content"] == "3"
            assert asyncio.run(_build_id_and_replay(address, out.run_id)) == "v2"
        finally:
            if v2 is not None:
                v2.stop()


def test_versioning_needs_a_name_and_a_build_id(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATH_DEPLOYMENT_NAME", "rath")
    monkeypatch.delenv("RATH_BUILD_ID", raising=False)
    with pytest.raises(ConfigError, match="RATH_BUILD_ID"):
        Settings.from_env()
    monkeypatch.setenv("RATH_BUILD_ID", "v1")
    monkeypatch.setenv("RATH_VERSIONING_BEHAVIOR", "sometimes")
    with pytest.raises(ConfigError, match="auto_upgrade, pinned"):
        Settings.from_env()
    monkeypatch.setenv("RATH_VERSIONING_BEHAVIOR", "pinned")
    settings = Settings.from_env()
    assert settings.versioned and settings.versioning_behavior == "pinned"
