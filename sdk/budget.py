"""``Budget``: token, tool-call and time limits for a run and its tree. See docs/modules.md."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from rath.utils.frozen import Frozen


class Budget(Frozen):
    """Limits for a run (``None`` means unlimited)."""

    total_tokens: int | None = Field(default=None, gt=0)
    tool_calls: int | None = Field(default=None, ge=0)
    deadline_seconds: float | None = Field(default=None, gt=0)


def with_total_tokens(budget: Budget | None, tokens: int | None) -> Budget | None:
    """``budget`` capped at ``tokens`` (OpenRath's ``budget_total_tokens``) unless it has a cap."""
    if tokens is None or (budget is not None and budget.total_tokens is not None):
        return budget
    return (budget or Budget()).model_copy(update={"total_tokens": tokens})


class Spent(Frozen):
    """What a run (or a tree of runs) has used so far."""

    tokens: int = 0
    tool_calls: int = 0

    def __add__(self, other: Spent) -> Spent:
        return Spent(
            tokens=self.tokens + other.tokens, tool_calls=self.tool_calls + other.tool_calls
        )


def exceeded(
    budget: Budget | None, spent: Spent, *, now: datetime, deadline_at: datetime | None
) -> str | None:
    """Why no further LLM call fits ``budget`` (a short reason), or ``None`` when one does."""
    cap = budget.total_tokens if budget is not None else None
    if cap is not None and spent.tokens >= cap:
        return f"total_tokens: {spent.tokens} used of {cap}"
    if deadline_at is not None and now >= deadline_at:
        return f"deadline: passed at {deadline_at.isoformat(timespec='seconds')}"
    return None


def tool_calls_left(budget: Budget | None, spent: Spent) -> int | None:
    """How many more tool calls ``budget`` allows (``None``: no limit)."""
    if budget is None or budget.tool_calls is None:
        return None
    return max(0, budget.tool_calls - spent.tool_calls)
