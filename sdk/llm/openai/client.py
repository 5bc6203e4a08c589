"""OpenRath's module path ``rath.llm.openai.client``: OpenRath's direct OpenAI client.

Re-exported from ``rath.llm.openai``.
"""

from rath.llm.openai import RathOpenAIChatClient

__all__ = ["RathOpenAIChatClient"]
