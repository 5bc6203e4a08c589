"""``Capabilities`` and ``IsolationLevel``, at OpenRath's module path."""

from __future__ import annotations

from rath.backend._types import (
    Capabilities,
    IsolationLevel,
)

__all__ = [
    "Capabilities",
    "IsolationLevel",
]
