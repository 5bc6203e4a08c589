"""Heartbeat while an activity awaits something slow, so a dead worker is noticed quickly."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from temporalio import activity


@asynccontextmanager
async def heartbeating(*details: object) -> AsyncIterator[None]:
    """Heartbeat (with ``details``) at a third of the heartbeat timeout while the block runs."""
    timeout = activity.info().heartbeat_timeout
    if not timeout:
        yield
        return
    interval = max(timeout.total_seconds() / 3, 0.05)

    async def beat() -> None:
        # Sleep first: a short activity then never pays for a heartbeat round trip.
        while True:
            await asyncio.sleep(interval)
            activity.heartbeat(*details)

    task = asyncio.create_task(beat())
    try:
        yield
    finally:
        task.cancel()
        await asyncio.wait({task})  # not `await task`: that would swallow our own cancel
