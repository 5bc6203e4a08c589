"""OpenRath's module path ``rath.llm.openai.create_kwargs``: Chat Completions arguments.

Re-exported from ``rath.llm.openai``.
"""

from rath.llm.openai import to_create_kwargs, to_create_kwargs_stream

__all__ = ["to_create_kwargs", "to_create_kwargs_stream"]
