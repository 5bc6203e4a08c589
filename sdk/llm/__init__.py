"""Model providers and the types that describe LLM calls."""

from rath.llm._provider import Provider, ProviderSpec
from rath.llm._usage import TokenUsage, add_usage

__all__ = ["Provider", "ProviderSpec", "TokenUsage", "add_usage"]
