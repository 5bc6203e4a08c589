"""``Agent(on_event=...)`` end to end: real Temporal, a real worker, fake servers on loopback.

The fake server holds the rest of its streamed answer until the test has seen the first delta
reach the callback, so "deltas arrive while the run goes on" is shown, not timed.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from streaming.helpers import Recorder, pausing_server
from support import FAST, kinds
from wires import fake_server, provider_for

from rath import flow
from rath.session import Session
from rath.settings import Settings
from rath.streaming import RathLLMStreamDelta
from rath.testing import ToolCallSpec, text_reply, tool_call_reply

WIRES = ("openai", "anthropic")
ANSWER = "The quick brown fox jumps over the lazy dog."


@pytest.mark.parametrize("wire", WIRES)
def test_deltas_reach_the_callback_while_the_model_is_still_writing(
    wire: str, rath_env: Settings
) -> None:
    resume = threading.Event()
    seen = Recorder()
    server, wire_state = pausing_server(wire, [text_reply(ANSWER)], resume)
    try:
        with server:
            agent = flow.Agent(
                "x", provider=provider_for(wire, server.base_url), options=FAST, on_event=seen
            )
            out = agent(Session.from_user_message("go"))
            # The server sent one piece and waits: the run cannot end before we let it.
            assert seen.first_text.wait(30), "no delta reached the callback"
            assert wire_state.paused.is_set() and not resume.is_set()
            assert out.pending
            first = seen.events[0]
            assert (first.round, first.attempt, first.offset) == (1, 1, 0)
            resume.set()
            out.synchronize()
    finally:
        resume.set()
    assert kinds(out) == ["user", "assistant"]
    final = out.chunk_table.rows[-1].payload["content"]
    assert final == ANSWER == seen.fold.rounds[1].content
    assert seen.fold.rounds[1].finish_reason == "stop"
    assert seen.fold.rounds[1].usage == out.cumulative_usage
    assert [e.offset for e in seen.events] == list(range(len(seen.events)))
    assert seen.events[-1].usage is not None  # every event was delivered before out was ready
    assert "MainThread" not in seen.threads  # the callback runs on the runtime, not the caller
    sent_first_piece = next(at for at, frame in wire_state.sent if b"The quick" in frame)
    latency = seen.arrived[0] - sent_first_piece
    print(f"\n{wire}: first delta reached the callback {latency * 1000:.0f} ms after it was sent")
    assert latency < 10


@pytest.mark.parametrize("wire", WIRES)
def test_tool_call_deltas_fold_into_each_rounds_row(
    wire: str, rath_env: Settings, tmp_path: Path
) -> None:
    script = [
        tool_call_reply(
            ToolCallSpec("write_workspace_file", {"path": "a.txt", "content": "A"}, id="call_w"),
            ToolCallSpec("read_workspace_file", {"path": "a.txt"}, id="call_r"),
            content="Writing, then reading.",
            usage=(20, 8),
        ),
        text_reply("a.txt says A.", usage=(40, 4)),
    ]
    seen = Recorder()
    with fake_server(wire, script) as server:
        agent = flow.Agent(
            "Use tools.", provider=provider_for(wire, server.base_url), options=FAST, on_event=seen
        )
        out = agent(Session.from_user_message("write a, read it").to("local", spec=tmp_path))
        out.synchronize()
    assert kinds(out) == ["user", "assistant", "tool_result", "tool_result", "assistant"]
    rows = out.chunk_table.rows
    first, second = seen.fold.rounds[1], seen.fold.rounds[2]
    assert first.content == rows[1].payload["content"] == "Writing, then reading."
    stored = [
        (c["id"], c["function"]["name"], c["function"]["arguments"])
        for c in rows[1].payload["tool_calls"]
    ]
    assert [(c.id, c.name, c.arguments) for c in first.tool_calls.values()] == stored
    assert first.finish_reason == "tool_calls" and second.finish_reason == "stop"
    assert second.content == rows[4].payload["content"] == "a.txt says A."
    assert first.usage is not None and second.usage is not None
    assert out.cumulative_usage == first.usage + second.usage
    # Events come round by round, in stream order, each once.
    assert [e.round for e in seen.events] == sorted(e.round for e in seen.events)
    assert [e.offset for e in seen.events] == list(range(len(seen.events)))
    assert {e.agent for e in seen.events} == {"agent"}


def test_a_run_without_on_event_does_not_stream(rath_env: Settings) -> None:
    with fake_server("openai", [text_reply("plain")]) as server:
        out = flow.Agent("x", provider=provider_for("openai", server.base_url), options=FAST)(
            Session.from_user_message("go")
        )
        out.synchronize()
        assert "stream" not in server.requests[0].body


def test_a_callback_that_raises_does_not_stop_the_stream(
    rath_env: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[RathLLMStreamDelta] = []

    def broken(event: RathLLMStreamDelta) -> None:
        seen.append(event)
        raise RuntimeError("the callback broke")

    with fake_server("openai", [text_reply(ANSWER)]) as server:
        agent = flow.Agent(
            "x", provider=provider_for("openai", server.base_url), options=FAST, on_event=broken
        )
        out = agent(Session.from_user_message("go"))
        assert out.chunk_table.rows[-1].payload["content"] == ANSWER
    assert seen[-1].usage is not None  # every event was still offered
    logged = [r for r in caplog.records if r.name == "rath.streaming"]
    assert len(logged) == 1 and "later events still come" in logged[0].getMessage()
