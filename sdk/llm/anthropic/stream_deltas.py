"""OpenRath's module path ``rath.llm.anthropic.stream_deltas``: Anthropic stream events as deltas.

Re-exported from ``rath.llm.anthropic``.
"""

from rath.llm._anthropic_stream import anthropic_event_to_deltas

__all__ = ["anthropic_event_to_deltas"]
