"""How many agent runs a durable forward starts at once (a start window). See docs/modules.md."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from rath.workflows._versions import has_change

STARTS_IN_FLIGHT = 25
"""Child starts a forward awaits at once (a workflow task builds at most this many). With 25,
a 1,000-agent forward's longest workflow task took 0.35 s at load 2 on two cores (0.75 s with
100): room under the detector's 2 s for a worker with a quarter of a core."""
PATCH = "rath-child-start-window"
"""Runs recorded before the window existed replay with every start in one task."""


class StartWindow:
    """A semaphore over child starts: one beyond the limit waits for a start event to come back."""

    def __init__(self, limit: int = STARTS_IN_FLIGHT) -> None:
        self._slots = asyncio.Semaphore(limit)

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold a slot while one child start is awaited."""
        # The patch is asked only when the window is full, so forwards of fewer agents than
        # the limit record no marker, and runs recorded before the window replay without it.
        if self._slots.locked() and not has_change(PATCH):
            yield
            return
        async with self._slots:
            yield
