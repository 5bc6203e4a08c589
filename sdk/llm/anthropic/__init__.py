"""OpenRath's ``rath.llm.anthropic``: the Anthropic chat client and its pure helpers.

The helpers follow OpenRath's table, not the durable loop's live-API wire (docs/openrath.md).
"""

from rath.llm._anthropic_stream import anthropic_event_to_deltas
from rath.llm._anthropic_wire import (
    build_anthropic_kwargs,
    build_anthropic_stream_kwargs,
    normalize_anthropic_response,
)
from rath.llm.anthropic.client import ANTHROPIC_RETRYABLE, RathAnthropicChatClient

__all__ = [
    "ANTHROPIC_RETRYABLE",
    "RathAnthropicChatClient",
    "anthropic_event_to_deltas",
    "build_anthropic_kwargs",
    "build_anthropic_stream_kwargs",
    "normalize_anthropic_response",
]
