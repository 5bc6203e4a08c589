"""OpenRath's module path ``rath.llm.anthropic.client``: OpenRath's direct Anthropic client.

Re-exported from ``rath.llm.anthropic``.
"""

from rath.llm.anthropic import ANTHROPIC_RETRYABLE, RathAnthropicChatClient

__all__ = ["ANTHROPIC_RETRYABLE", "RathAnthropicChatClient"]
