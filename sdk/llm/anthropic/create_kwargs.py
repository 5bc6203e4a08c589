"""OpenRath's module path ``rath.llm.anthropic.create_kwargs``: Messages API arguments.

Re-exported from ``rath.llm.anthropic``.
"""

from rath.llm._anthropic_wire import build_anthropic_kwargs, build_anthropic_stream_kwargs

__all__ = ["build_anthropic_kwargs", "build_anthropic_stream_kwargs"]
