"""OpenRath's module path ``rath.llm.openai.normalize``: a response as OpenRath's.

Re-exported from ``rath.llm.openai``.
"""

from rath.llm.openai import normalize_chat_completion

__all__ = ["normalize_chat_completion"]
