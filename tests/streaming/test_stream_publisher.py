"""The LLM activity's delta publisher stops promptly, whatever it was doing when closed.

Regression: on Python 3.11 a cancel that lands in the same loop tick as a wake-up is swallowed
by ``asyncio.wait_for``. The publisher used to stop its batching task by cancelling it, so an
attempt that emitted a delta just before finishing (every delta of a retried attempt wakes
the task) could hang in ``close()`` until the activity's 10-minute timeout.
"""

from __future__ import annotations

import asyncio
import threading

from streaming.helpers import Recorder, pausing_server
from support import FAST
from temporalio.client import Client
from temporalio.contrib.workflow_streams import WorkflowStreamClient
from wires import provider_for

from rath import flow
from rath.activities._llm_stream import DeltaPublisher
from rath.session import Session
from rath.settings import Settings
from rath.streaming import RathLLMStreamDelta, StreamOptions
from rath.testing import text_reply

CLOSE_BOUND = 15.0  # close() itself gives up after 10 s; a hang would be unbounded


async def _wait_until_parked(publisher: DeltaPublisher) -> None:
    """Let the batching task reach its wait for a wake-up (a few loop turns, bounded)."""
    for _ in range(100):
        await asyncio.sleep(0)
        task = publisher._task
        if task is not None and task.get_coro().cr_await is not None:  # type: ignore[union-attr]
            return
    raise AssertionError("the batching task never started waiting")


async def test_close_right_after_an_emit_returns_and_delivers(
    rath_env: Settings, client: Client
) -> None:
    resume = threading.Event()
    seen = Recorder()
    server, _ = pausing_server("openai", [text_reply("a paused answer")], resume)
    try:
        with server:
            agent = flow.Agent(
                "x", provider=provider_for("openai", server.base_url), options=FAST, on_event=seen
            )
            out = agent(Session.from_user_message("go"))
            assert seen.first_text.wait(30)  # the run is alive and hosts its stream
            assert out.run_id is not None
            stream = WorkflowStreamClient.create(client, out.run_id)
            for attempt in range(2, 7):  # fresh publishers: each emit wakes the task
                publisher = DeltaPublisher(
                    stream, StreamOptions(), {"agent": "probe", "round": 9, "attempt": attempt}
                )
                publisher.start()
                await _wait_until_parked(publisher)
                publisher.emit(RathLLMStreamDelta(content_delta=f"late {attempt}"))
                closing = asyncio.create_task(publisher.close())
                done, _ = await asyncio.wait({closing}, timeout=CLOSE_BOUND)
                assert closing in done, f"close() of attempt {attempt} hung"
                assert publisher._task is not None and publisher._task.done()
            resume.set()
            await out.ready()
    finally:
        resume.set()
    probes = [e.content_delta for e in seen.events if e.agent == "probe"]
    assert probes == [f"late {attempt}" for attempt in range(2, 7)]  # each delivered, once
