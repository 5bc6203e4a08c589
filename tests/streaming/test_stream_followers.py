"""Following a run's stream late, resuming from an offset, and across continue-as-new."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from streaming.helpers import Recorder, pausing_server
from support import FAST, kinds
from temporalio.client import Client
from wires import fake_server, provider_for

from rath import flow
from rath.errors import ConfigError, RunFailedError
from rath.session import Session
from rath.settings import Settings
from rath.streaming import RathLLMStreamDelta, follow_events, stream_events
from rath.testing import text_reply, tool_call_reply


def _dump(events: list[RathLLMStreamDelta]) -> list[dict[str, object]]:
    return [e.model_dump() for e in events]


def test_a_late_follower_resumes_from_an_offset_without_repeats(rath_env: Settings) -> None:
    resume = threading.Event()
    owner = Recorder()
    server, _ = pausing_server("openai", [text_reply("one two three four five six")], resume)
    try:
        with server:
            agent = flow.Agent(
                "x",
                provider=provider_for("openai", server.base_url),
                options=FAST,
                on_event=owner,
            )
            out = agent(Session.from_user_message("go"))
            assert owner.first_text.wait(30)
            # A second observer joins mid-run, takes one event, and disconnects.
            first = Recorder()
            early = follow_events(out, first)
            assert first.first_text.wait(30)
            early.cancel()
            resume.set()
            out.synchronize()
    finally:
        resume.set()
    # It comes back from where it stopped: together it saw every event exactly once.
    rest = Recorder()
    later = follow_events(out, rest, from_offset=early.next_offset)
    later.wait(timeout=30)
    assert later.next_offset == len(owner.events)
    assert _dump(first.events[: early.delivered] + rest.events) == _dump(owner.events)
    # And one that starts at an offset after the run ended gets exactly the tail.
    tail = Recorder()
    follow_events(out, tail, from_offset=2).wait(timeout=30)
    assert _dump(tail.events) == _dump(owner.events[2:])


async def test_a_caller_that_gives_up_waiting_stops_only_its_own_wait(
    rath_env: Settings,
) -> None:
    """``asyncio.wait_for(out.ready(), t)`` timing out cancels neither the run nor its events."""
    resume = threading.Event()
    seen = Recorder()
    server, _ = pausing_server("openai", [text_reply("one two three four")], resume)
    try:
        with server:
            agent = flow.Agent(
                "x", provider=provider_for("openai", server.base_url), options=FAST, on_event=seen
            )
            out = agent(Session.from_user_message("go"))
            assert await asyncio.to_thread(seen.first_text.wait, 30)
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(out.ready(), 0.2)  # the answer is paused: cannot finish
            resume.set()
            await out.ready()
    finally:
        resume.set()
    assert kinds(out) == ["user", "assistant"]
    assert seen.fold.rounds[1].content == "one two three four"


def test_the_stream_survives_continue_as_new(rath_env: Settings, tmp_path: Path) -> None:
    script = [
        tool_call_reply(("write_workspace_file", {"path": "a.txt", "content": "A"}), content="1"),
        tool_call_reply(("read_workspace_file", {"path": "a.txt"}), content="2"),
        text_reply("three"),
    ]
    seen = Recorder()
    options = FAST.model_copy(update={"continue_as_new_after_rounds": 1})
    with fake_server("openai", script) as server:
        agent = flow.Agent(
            "x", provider=provider_for("openai", server.base_url), options=options, on_event=seen
        )
        out = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        out.synchronize()
    assert kinds(out) == [
        "user",
        "assistant",
        "tool_result",
        "assistant",
        "tool_result",
        "assistant",
    ]
    rows = out.chunk_table.rows
    assert [seen.fold.rounds[n].content for n in (1, 2, 3)] == ["1", "2", "three"]
    assert [rows[i].payload["content"] for i in (1, 3, 5)] == ["1", "2", "three"]
    assert [e.offset for e in seen.events] == list(range(len(seen.events)))
    # The last run got the earlier runs' events: a follower from 0 still sees all of them.
    again = Recorder()
    follow_events(out, again).wait(timeout=30)
    assert _dump(again.events) == _dump(seen.events)


async def test_the_run_continued_as_new(rath_env: Settings, client: Client) -> None:
    """Asserts on the chain itself: three runs, the first two continued as new."""
    script = [tool_call_reply(("list_workspace_files", {"path": "."})) for _ in range(2)]
    options = FAST.model_copy(update={"continue_as_new_after_rounds": 1})
    with fake_server("openai", [*script, text_reply("done")]) as server:
        agent = flow.Agent(
            "x",
            provider=provider_for("openai", server.base_url),
            options=options,
            on_event=lambda event: None,
        )
        out = agent(Session.from_user_message("go").to("local"))
        await out.ready()
    assert out.run_id is not None
    runs, run_id = 0, ""  # follow each run back to the one it continued
    while True:
        handle = client.get_workflow_handle(out.run_id, run_id=run_id or None)
        started = (await handle.fetch_history()).events[0]
        runs += 1
        run_id = started.workflow_execution_started_event_attributes.continued_execution_run_id
        if not run_id:
            break
    assert runs == 3
    events = [e async for e in stream_events(client, out.run_id)]
    assert sorted({e.round for e in events}) == [1, 2, 3]
    assert [e.offset for e in events] == list(range(len(events)))


async def test_following_a_run_that_does_not_stream_says_so(
    rath_env: Settings, client: Client
) -> None:
    with fake_server("openai", [text_reply("quiet")]) as server:
        out = flow.Agent("x", provider=provider_for("openai", server.base_url), options=FAST)(
            Session.from_user_message("go")
        )
        await out.ready()
    assert out.run_id is not None
    with pytest.raises(ConfigError, match="does not stream"):
        async for _ in stream_events(client, out.run_id):
            pass
    with pytest.raises(ConfigError, match="no run"):
        async for _ in stream_events(client, "rath-no-such-run", start_timeout=0.2):
            pass


class StreamingPair(flow.Workflow):
    """A durable forward whose agent asks for events (which cannot reach the caller)."""

    def __init__(self, base_url: str) -> None:
        super().__init__()
        self.writer = flow.Agent(
            "Write.", provider=provider_for("openai", base_url), on_event=print
        )

    def forward(self, session: Session) -> Session:
        return self.writer(session)


def test_on_event_inside_a_durable_forward_is_a_clear_error(rath_env: Settings) -> None:
    with fake_server("openai", [text_reply("never")]) as server:
        out = StreamingPair(server.base_url)(Session.from_user_message("go"))
        with pytest.raises(RunFailedError, match="on_event cannot reach your process"):
            out.synchronize()
