"""How many agent runs a durable forward starts at once: a window of child starts.

A forward that fans out to 1,000 agents used to schedule every child start in its first
workflow task. Building 1,000 inputs and start commands in one task outlasts the SDK's 2 s
deadlock detector on a busy worker, and the task then fails the same way on every retry. With
the window, at most :data:`STARTS_IN_FLIGHT` starts wait for their start events at a time;
the rest go out in the following workflow tasks as those events arrive.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from temporalio import workflow

STARTS_IN_FLIGHT = 100
"""Child starts a forward awaits at once (a workflow task builds at most this many)."""
PATCH = "rath-child-start-window"
"""Runs recorded before the window existed replay with every start in one task."""


@dataclass
class StartWindow:
    """Counts the child starts in flight; a start beyond the limit waits for a free slot."""

    limit: int = STARTS_IN_FLIGHT
    starting: int = 0

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold a slot while one child start is awaited."""
        # The patch is asked only when the window is full, so forwards of fewer agents than
        # the limit record no marker and replay as they always did.
        if self.starting >= self.limit and workflow.patched(PATCH):
            while self.starting >= self.limit:  # every waiter wakes at once: re-check
                await workflow.wait_condition(lambda: self.starting < self.limit)
        self.starting += 1
        try:
            yield
        finally:
            self.starting -= 1
