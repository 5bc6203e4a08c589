"""Token usage reported by a model, summed across rounds and sessions."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator


class TokenUsage(BaseModel):
    """Prompt, completion and total tokens; ``a + b`` sums field by field."""

    model_config = ConfigDict(frozen=True)

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    @model_validator(mode="before")
    @classmethod
    def _total_from_parts(cls, data: Any) -> Any:
        """Fill a missing ``total_tokens`` from its parts (some compatible servers omit it).

        Budgets and usage read the total, so a zero there would never trip a budget.
        """
        if isinstance(data, dict) and not data.get("total_tokens"):
            parts = int(data.get("prompt_tokens") or 0) + int(data.get("completion_tokens") or 0)
            data = {**data, "total_tokens": parts}
        return data

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
