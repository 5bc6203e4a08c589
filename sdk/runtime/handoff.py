"""Whether work handed to a run (``rath approve``) is picked up by a worker. See docs/modules.md."""

from __future__ import annotations

import asyncio
import time

from temporalio.api.enums.v1 import PendingActivityState
from temporalio.client import Client

_POLL_SECONDS = 0.2


async def unstarted_activities(client: Client, run_id: str, *, within: float) -> list[str]:
    """Types of ``run_id``'s activities still not started ``within`` seconds (empty: all go)."""
    handle = client.get_workflow_handle(run_id)
    deadline = time.monotonic() + within
    while True:
        pending = (await handle.describe()).raw_description.pending_activities
        waiting = [
            info.activity_type.name
            for info in pending
            if info.state == PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED
        ]
        if not waiting or time.monotonic() >= deadline:
            return waiting
        await asyncio.sleep(_POLL_SECONDS)  # a worker takes a task within milliseconds
