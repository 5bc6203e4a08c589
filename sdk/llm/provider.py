"""OpenRath's module path ``rath.llm.provider``: the chat ``Provider``.

Re-exported from ``rath.llm._provider``.
"""

from rath.llm._provider import Provider

__all__ = ["Provider"]
