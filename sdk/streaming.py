"""Streaming a run's model output to the caller while it runs (``on_event=callback``).

Delivery rules (order, retries, late followers): docs/providers.md, "Streaming".
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
