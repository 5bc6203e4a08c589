"""``Frozen``: the base of Rath's immutable pydantic values (contracts, budgets)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["Frozen"]


class Frozen(BaseModel):
    """A pydantic model whose instances cannot be changed once built.

    A subclass that sets its own ``model_config`` stays frozen: pydantic merges it with this one.
    """

    model_config = ConfigDict(frozen=True)
