"""An agent placed with ``.to(name, spec=...)`` runs its tools in that backend, durably."""

from __future__ import annotations

from pathlib import Path

import pytest
from sandbox.backends import Backend
from support import FAST, fake_provider, history_of, tool_bodies
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from rath import flow
from rath.backend.sandboxes import LocalSandbox, _registry
from rath.session import Session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply, tool_call_reply


def test_agent_tools_run_in_the_chosen_backend(
    rath_env: Settings, tmp_path: Path, backend: Backend
) -> None:
    script = [
        tool_call_reply(("write_workspace_file", {"path": "notes.txt", "content": "hi\n"})),
        tool_call_reply(("run_shell_command", {"cmd": "cat notes.txt; pwd; echo ok > out.txt"})),
        text_reply("done"),
    ]
    with FakeChatServer(script) as server:
        agent = flow.Agent("Use tools.", provider=fake_provider(server), options=FAST)
        spec = backend.spec(tmp_path)
        out = agent(Session.from_user_message("go").to(backend.name, spec=spec))
        bodies = tool_bodies(out)
    assert bodies[0] == {"bytes_written": 3}
    assert bodies[1]["stdout"] == f"hi\n{backend.inside(tmp_path)}\n"
    assert (tmp_path / "out.txt").read_text() == "ok\n"


class NeverAvailable(LocalSandbox):
    """A registered backend that cannot run anywhere (as bwrap without bubblewrap)."""

    name = "rath-test-never"

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return "this test backend never runs"


async def test_an_unavailable_backend_fails_the_tool_call_without_retries(
    rath_env: Settings, client: Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(_registry._backends, NeverAvailable.name, NeverAvailable)
    script = [tool_call_reply(("run_shell_command", {"cmd": "true"})), text_reply("done")]
    options = FAST.model_copy(update={"tool_max_attempts": 3})
    with FakeChatServer(script) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=options)
        out = agent(Session.from_user_message("go").to(NeverAvailable.name, spec=tmp_path))
        (body,) = tool_bodies(out)
    assert body["ok"] is False
    assert (
        "sandbox backend 'rath-test-never' is unavailable: this test backend never runs. "
        "Available: " in body["message"]
    )
    assert "local" in body["message"].split("Available: ")[1]
    assert out.run_id is not None
    events = (await history_of(client, out.run_id)).events
    (failed,) = [
        e.activity_task_failed_event_attributes
        for e in events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED
    ]
    info = failed.failure.application_failure_info
    assert (info.type, info.non_retryable) == ("SandboxUnavailableError", True)
    (started,) = [e for e in events if e.event_id == failed.started_event_id]
    assert started.activity_task_started_event_attributes.attempt == 1
