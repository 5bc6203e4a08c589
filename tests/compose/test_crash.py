"""kill -9 of the worker while the reviewer is pending: a new worker finishes the Squad run
without calling the planner's or the coders' models again."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from support import FAST, fake_provider
from workers import WorkerProcess

from rath.session import Session
from rath.testing import FakeChatServer, function_handler, gated, text_reply

COMPOSE_DIR = str(Path(__file__).resolve().parent)


def test_kill_9_during_review_resumes_without_rerunning_finished_agents(
    remote_env: dict[str, str],
) -> None:
    from squad_app import Squad

    env = remote_env | {
        "PYTHONPATH": os.pathsep.join([COMPOSE_DIR, remote_env.get("PYTHONPATH", "")])
    }
    gate = threading.Event()
    replies = iter([gated(text_reply("review lost with the worker"), gate), text_reply("LGTM")])
    options = FAST.model_copy(update={"llm_heartbeat_seconds": 2})
    servers = {
        role: FakeChatServer(function_handler(lambda r, role=role: f"{role} done"))
        for role in ("planner", "coder_a", "coder_b")
    }
    servers["reviewer"] = FakeChatServer(function_handler(lambda r: next(replies)))
    first = WorkerProcess(env, "--workflows", "squad_app:Squad")
    second: WorkerProcess | None = None
    try:
        for server in servers.values():
            server.start()
        # Remote mode: no key is handed over; the fake endpoints need none.
        providers = {role: fake_provider(server, api_key=None) for role, server in servers.items()}
        squad = Squad(providers["planner"], options=options, **providers)
        out = squad(Session.from_user_message("build it"))
        servers["reviewer"].wait_for_requests(1, timeout=60)  # coders done, review in flight
        first.kill()
        gate.set()
        second = WorkerProcess(env, "--workflows", "squad_app:Squad")
        rows = out.chunk_table.rows
    finally:
        first.stop()
        if second is not None:
            second.stop()
        for server in servers.values():
            server.stop()
    assert rows[-1].payload["content"] == "LGTM"
    assert [len(servers[role].requests) for role in ("planner", "coder_a", "coder_b")] == [1, 1, 1]
    assert len(servers["reviewer"].requests) == 2  # the lost attempt, then its retry
