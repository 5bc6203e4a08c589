"""OpenRath's ``rath.llm.budget``: the error a budget callback raises to stop a loop."""

from rath.errors import BudgetExceededError

__all__ = ["BudgetExceededError"]
