"""kill -9 of a worker mid-session: a new worker finishes the run with the same transcript."""

from __future__ import annotations

import threading
from pathlib import Path

from support import FAST, fake_provider, kinds, tool_bodies
from workers import WorkerProcess

from rath import flow
from rath.session import Session
from rath.testing import FakeChatServer, gated, text_reply, tool_call_reply


def test_kill_9_worker_mid_session_then_restart_completes(
    remote_env: dict[str, str], tmp_path: Path
) -> None:
    gate = threading.Event()
    script = [
        tool_call_reply(("write_workspace_file", {"path": "notes.txt", "content": "hi"})),
        gated(text_reply("lost with the dead worker"), gate),
        text_reply("finished by the new worker"),
    ]
    options = FAST.model_copy(update={"llm_heartbeat_seconds": 2})
    first = WorkerProcess(remote_env)
    second: WorkerProcess | None = None
    try:
        with FakeChatServer(script) as server:
            # Remote mode: no key is handed over; the fake endpoint needs none.
            provider = fake_provider(server, api_key=None)
            agent = flow.Agent("x", provider=provider, options=options)
            out = agent(Session.from_user_message("go").to("local", spec=tmp_path))
            server.wait_for_requests(2, timeout=60)  # round 1 done, round 2 in flight
            first.kill()
            gate.set()
            second = WorkerProcess(remote_env)
            assert kinds(out) == ["user", "assistant", "tool_result", "assistant"]
            assert len(server.requests) == 3  # the lost round was retried once, nothing more
    finally:
        first.stop()
        if second is not None:
            second.stop()
    assert tool_bodies(out) == [{"bytes_written": 2}]
    assert out.chunk_table.rows[-1].payload["content"] == "finished by the new worker"
    assert (tmp_path / "notes.txt").read_text() == "hi"
