"""Client side of sandbox leases: placed sessions hold their sandbox until released."""

from __future__ import annotations

import concurrent.futures
import logging
import uuid

from temporalio.client import Client

from rath.backend.persistence.leases import Lease, LeaseRegistry
from rath.contracts.runs import CLOSE_SANDBOX_RUN
from rath.runtime.runtime import get_runtime
from rath.session.placement import Placement
from rath.session.session import Session
from rath.settings import Settings
from rath.utils.text import markdown_fields

CLOSE_TIMEOUT = 30.0
"""Seconds a release waits for the owner to close the sandbox before going on (it still will)."""

_log = logging.getLogger("rath.sandbox")


def leases(settings: Settings | None = None) -> LeaseRegistry:
    """The lease registry the environment points at."""
    return LeaseRegistry((settings or Settings.from_env()).sandboxes_dir)


def hold(session: Session) -> None:
    """Make a placed session a holder of its sandbox (a no-op for unplaced ones)."""
    placement = session.sandbox
    if placement is not None:
        leases().acquire(placement.sandbox_id, placement.backend, str(session.id))


def release(placement: Placement, holder: str) -> bool:
    """Let ``holder`` go; the last holder closes the sandbox (on its owner)."""
    registry = leases()
    last = registry.release(placement.sandbox_id, holder)
    if last is None:
        return False
    if last.allocated or last.owner is not None:  # a workspace to delete, or an open sandbox
        _close(last)
    registry.forget(last.sandbox_id)
    return True


def _close(lease: Lease) -> None:
    runtime = get_runtime()

    started: concurrent.futures.Future[None] = concurrent.futures.Future()

    async def run(client: Client) -> None:
        handle = await client.start_workflow(
            CLOSE_SANDBOX_RUN.name,
            lease,
            result_type=CLOSE_SANDBOX_RUN.result,
            id=f"rath-close-{lease.sandbox_id.hex[:12]}-{uuid.uuid4().hex[:6]}",
            task_queue=runtime.settings.task_queue,
            static_summary=f"close sandbox {lease.sandbox_id.hex[:8]} · {lease.backend}",
            static_details=markdown_fields(
                ("sandbox", lease.sandbox_id),
                ("backend", lease.backend),
                ("workspace", lease.workspace or "(none)"),
                ("delete workspace", "yes" if lease.allocated else "no"),
                ("owner", lease.owner or "(not opened)"),
            ),
        )
        started.set_result(None)
        await handle.result()

    try:
        runtime.call(run, timeout=CLOSE_TIMEOUT)
    except concurrent.futures.TimeoutError:
        if not started.done():
            raise  # not even started: the record stays (with no holders), nothing forgotten
        # The close is a durable run: it completes when the owner comes back. Waiting
        # longer would only hold up the caller (and mask an error of a ``with`` body).
        _log.warning(
            "the sandbox %s is not closed yet (its owner, %s, has not answered in %g s); "
            "it will be once that worker runs again",
            lease.sandbox_id.hex[:8],
            lease.owner,
            CLOSE_TIMEOUT,
        )
