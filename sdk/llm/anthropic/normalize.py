"""OpenRath's module path ``rath.llm.anthropic.normalize``: a response as OpenRath's.

Re-exported from ``rath.llm.anthropic``.
"""

from rath.llm._anthropic_wire import normalize_anthropic_response

__all__ = ["normalize_anthropic_response"]
