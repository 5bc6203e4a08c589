"""``Stream``, ``Event`` and ``Future``, at OpenRath's module path."""

from __future__ import annotations

from rath.backend._stream import (
    Event,
    Future,
    Stream,
)

__all__ = [
    "Event",
    "Future",
    "Stream",
]
