"""P4: recovery after a worker is SIGKILLed mid-session (part of ``tests/bench/run.py``).

A 500-round session (one tool call per round) runs on two worker processes against the
embedded server. When round 300's model request arrives, the worker running that LLM call is
found from the run's pending activity (its worker identity is ``pid@host``) and SIGKILLed.
P4 is the time from the kill to the next model request: the retry, on the other worker.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from pathlib import Path

from temporalio.client import Client

ROUNDS, KILL_AT = 500, 300
WAIT = 120.0


def recovery_after_kill(home: Path, rounds: int = ROUNDS, kill_at: int = KILL_AT) -> float:
    """Seconds from SIGKILL of the worker running an LLM call to the retried request."""
    from support import FAST, fake_provider
    from workers import WorkerProcess

    from rath import flow
    from rath.runtime.devserver import ensure_server, stop_server
    from rath.runtime.runtime import shutdown_runtime
    from rath.session import Session
    from rath.testing import (
        FakeChatServer,
        RecordedRequest,
        Reply,
        function_handler,
        text_reply,
        tool_call_reply,
    )

    address = ensure_server(home).address
    os.environ["TEMPORAL_ADDRESS"] = address  # remote mode: only the worker processes run work
    arrived: list[float] = []
    reached, released = threading.Event(), threading.Event()

    def model(request: RecordedRequest) -> Reply:
        arrived.append(time.monotonic())
        if len(arrived) == kill_at:
            reached.set()
            released.wait(WAIT)  # hold this call until its worker is dead
        if sum(1 for message in request.messages if message.get("role") == "tool") == rounds:
            return text_reply("done")
        return tool_call_reply(("workspace_path_exists", {"path": "x"}))

    env = dict(os.environ)
    workers = [WorkerProcess(env), WorkerProcess(env)]
    try:
        with FakeChatServer(function_handler(model)) as server:
            options = FAST.model_copy(update={"max_tool_rounds": rounds + 1})
            agent = flow.Agent(
                "bench", provider=fake_provider(server, api_key=None), options=options
            )
            out = agent(Session.from_user_message("go").to("local", spec=home / "ws"))
            assert reached.wait(WAIT), f"round {kill_at} never asked the model"
            pid = asyncio.run(_llm_worker_pid(address, out.run_id or ""))
            os.kill(pid, signal.SIGKILL)
            killed = time.monotonic()
            released.set()
            out.synchronize()
            recovered = arrived[kill_at] - killed
    finally:
        for worker in workers:
            worker.stop()
        shutdown_runtime()
        stop_server(home)
        os.environ.pop("TEMPORAL_ADDRESS", None)
    assert len(out.chunk_table) == 2 * rounds + 2
    print(
        f"P4 recovery: SIGKILL of the worker running round {kill_at}'s LLM call -> the retried "
        f"request {recovered:.2f} s later, on the other worker (target <= 6 s)"
    )
    return recovered


async def _llm_worker_pid(address: str, workflow_id: str) -> int:
    """The pid of the worker running the session's pending LLM call (identity ``pid@host``)."""
    client = await Client.connect(address)
    description = await client.get_workflow_handle(workflow_id).describe()
    (pending,) = description.raw_description.pending_activities
    return int(pending.last_worker_identity.split("@", 1)[0])
