"""Client side of sandbox leases: placed sessions hold their sandbox until released."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from rath._runtime.settings import Settings
from rath.sandbox._leases import Lease, LeaseRegistry

if TYPE_CHECKING:
    from rath.session._session import Placement, Session

CLOSE_TIMEOUT = 120.0


def leases(settings: Settings | None = None) -> LeaseRegistry:
    """The lease registry the environment points at."""
    return LeaseRegistry((settings or Settings.from_env()).sandboxes_dir)


def hold(session: Session) -> None:
    """Make a placed session a holder of its sandbox (a no-op for unplaced ones)."""
    placement = session.sandbox
    if placement is not None:
        leases().acquire(placement.sandbox_id, placement.backend, str(session.id))


def release(placement: Placement, holder: str) -> bool:
    """Let ``holder`` go; the last holder closes the sandbox (on its owner).

    Returns:
        Whether this closed it.
    """
    last = leases().release(placement.sandbox_id, holder)
    if last is None:
        return False
    if last.allocated or last.owner is not None:  # a workspace to delete, or an open sandbox
        _close(last)
    return True


def _close(lease: Lease) -> None:
    from rath._runtime.runtime import get_runtime

    runtime = get_runtime()

    async def run() -> None:
        client = await runtime.client()
        await client.execute_workflow(
            "rath.CloseSandbox",
            lease,
            id=f"rath-close-{lease.sandbox_id.hex[:12]}-{uuid.uuid4().hex[:6]}",
            task_queue=runtime.settings.task_queue,
        )

    runtime.submit(run()).result(timeout=CLOSE_TIMEOUT)
