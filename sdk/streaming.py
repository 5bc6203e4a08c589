"""Streaming a run's model output to the caller while it runs.

``flow.Agent(..., on_event=callback)`` (or ``run_session_loop(..., on_event=...)``) makes
every loop round stream from the provider; each piece reaches ``callback`` as a
:class:`RathLLMStreamDelta` while the run goes on. The durable result is unchanged: one
assistant row per round, built from the whole answer.

How it travels: the LLM activity publishes the deltas, in batches, to the run's workflow
stream (``temporalio.contrib.workflow_streams``, hosted by the session-loop workflow); the
client follows that stream from offset 0 until the run ends, across continue-as-new.

Delivery rules:

- In order, each event once. Every event carries its ``offset``; a follower that comes late
  or reconnects (:func:`follow_events` with ``from_offset``) sees no repeats.
- Each event names its ``round`` and LLM activity ``attempt``. When an attempt fails
  mid-stream and Temporal retries it, the new attempt begins with a ``retry`` event: what
  earlier attempts of that round streamed is void (clear it from the screen; a
  :class:`StreamFold` does this). Events of an attempt older than one already delivered are
  dropped, so a superseded attempt can never interleave with its successor.
- The callback runs on a worker thread of Rath's background runtime, one call at a time,
  never on the caller's thread. An exception it raises is logged and later events still come.
- The output session is ready only after every event of its run was delivered.

Only loop rounds stream (not compression or memory extraction), and only runs started from
plain Python: inside a durable ``forward`` the callback could not reach the caller.
"""

from rath.llm.base import AsyncStreamingChatClient
from rath.llm.chat_response import RathLLMStreamDelta
from rath.llm.pool import stream_completion
from rath.llm.stream import TOPIC, FoldedCall, FoldedRound, StreamFold, StreamOptions
from rath.runtime.follow import EventCallback, EventFollower, follow_events, stream_events

__all__ = [
    "TOPIC",
    "AsyncStreamingChatClient",
    "EventCallback",
    "EventFollower",
    "FoldedCall",
    "FoldedRound",
    "RathLLMStreamDelta",
    "StreamFold",
    "StreamOptions",
    "follow_events",
    "stream_completion",
    "stream_events",
]
