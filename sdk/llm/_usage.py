"""Token usage reported by a model, summed across rounds and sessions."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class TokenUsage(BaseModel):
    """Prompt, completion and total tokens; ``a + b`` sums field by field."""

    model_config = ConfigDict(frozen=True)

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
        )


def add_usage(a: TokenUsage | None, b: TokenUsage | None) -> TokenUsage | None:
    """Sum two optional usages; ``None`` only when both are ``None``."""
    if a is None:
        return b
    if b is None:
        return a
    return a + b
