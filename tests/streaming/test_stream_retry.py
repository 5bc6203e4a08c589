"""An LLM attempt that fails mid-stream and is retried: the caller sees it once, never mixed.

Rule: attempt n > 1 of a round begins with a ``retry`` event, which voids what earlier attempts
of that round streamed; an event of an attempt older than one already delivered is dropped.
"""

from __future__ import annotations

import threading

import pytest
from streaming.helpers import Recorder, pausing_server
from support import FAST, history_of, kinds
from temporalio.client import Client
from temporalio.contrib.workflow_streams import WorkflowStreamClient
from wires import fake_server, llm_calls, provider_for

from rath import flow
from rath.session import Session
from rath.settings import Settings
from rath.streaming import TOPIC, RathLLMStreamDelta
from rath.testing import text_reply, truncated

FIRST = "this first attempt breaks off in the middle of its answer"


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_a_retried_stream_is_voided_and_not_repeated(
    wire: str, rath_env: Settings, client: Client
) -> None:
    seen = Recorder()
    script = [truncated(text_reply(FIRST), keep=0.5), text_reply("the second attempt wins")]
    with fake_server(wire, script) as server:
        agent = flow.Agent(
            "x", provider=provider_for(wire, server.base_url), options=FAST, on_event=seen
        )
        out = agent(Session.from_user_message("go"))
        assert kinds(out) == ["user", "assistant"]
    assert out.run_id is not None
    (call,) = llm_calls(await history_of(client, out.run_id))
    assert (call.attempt, call.last_failure_type) == (2, "LLMBadResponse")

    events = seen.events
    retry_at = next(i for i, e in enumerate(events) if e.retry)
    before, marker, after = events[:retry_at], events[retry_at], events[retry_at + 1 :]
    # The failed attempt's partial answer arrived (before the run ended), then was voided.
    partial = "".join(e.content_delta or "" for e in before)
    assert partial and FIRST.startswith(partial) and partial != FIRST
    assert all(e.key == (1, 1) for e in before)
    assert (marker.round, marker.attempt) == (1, 2)
    assert all(e.key == (1, 2) for e in after)  # nothing of attempt 1 after the marker
    assert [e.offset for e in events] == list(range(len(events)))  # each once, in order
    assert seen.fold.rounds[1].content == "the second attempt wins"
    assert out.chunk_table.rows[-1].payload["content"] == "the second attempt wins"


async def test_a_superseded_attempt_still_publishing_is_not_delivered(
    rath_env: Settings, client: Client
) -> None:
    """A zombie attempt (its worker lost, the retry already running) publishes late."""
    resume = threading.Event()
    seen = Recorder()
    server, _ = pausing_server("openai", [text_reply("the real answer")], resume)
    try:
        with server:
            agent = flow.Agent(
                "x",
                provider=provider_for("openai", server.base_url),
                options=FAST,
                on_event=seen,
            )
            out = agent(Session.from_user_message("go"))
            assert seen.first_text.wait(30)
            assert out.run_id is not None
            zombie = WorkflowStreamClient.create(client, out.run_id)
            topic = zombie.topic(TOPIC, type=RathLLMStreamDelta)
            topic.publish(RathLLMStreamDelta(round=1, attempt=2, retry=True))
            topic.publish(RathLLMStreamDelta(round=1, attempt=1, content_delta="zombie"))
            topic.publish(RathLLMStreamDelta(round=1, attempt=2, content_delta="fresh"))
            await zombie.flush()
            resume.set()
            await out.ready()
    finally:
        resume.set()
    texts = [(e.attempt, e.content_delta) for e in seen.events if e.content_delta]
    assert (1, "zombie") not in texts
    assert (2, "fresh") in texts
    # The real attempt 1 kept publishing after the marker: dropped too, so the fold is clean.
    assert seen.fold.rounds[1].content == "fresh"
    offsets = [e.offset for e in seen.events]
    assert offsets == sorted(set(offsets))
