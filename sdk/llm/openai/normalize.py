"""OpenRath's ``rath.llm.openai.normalize``: a response as OpenRath's."""

from rath.llm._wire import normalize_chat_completion

__all__ = ["normalize_chat_completion"]
