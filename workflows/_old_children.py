"""A reset forward stops its old run's children before it starts its own.

``temporal workflow reset`` of a ``rath.Forward`` closes the old run (*Terminated*, with the
reset's reason) and starts a new one that replays the old history up to the reset point, then
runs on. On server 1.32 (measured):

- children the old run started **before** the reset point carry over: the new run waits on
  them and gets their results (visibility still names the old run as their parent);
- children it started **after** the reset point keep running, parentless in effect: the
  server applies no parent-close policy to a reset;
- the new run re-derives the same child ids for agents it starts again (a sync ``forward``
  makes every session id in its first workflow task), so starting them fails while the old
  ones run (``WorkflowAlreadyStarted``), and ids made after the reset point differ (the
  random seed changes at the reset), so the old ones would run beside the new.

So before its first child start after the reset point, a reset run (its run id differs from
the original run id its history starts with) runs ``rath.runs.stop_old_children``: the old
run's children it did not inherit are cancelled (each records itself as cancelled) and
awaited, bounded, and only then do the new ones start.

Whether a child start is past the reset point is decided once, live, and written down as a
patch marker per child id (``rath-reset-stops-old-children-<id>``); a replay follows the
markers. (A replay cannot decide it: ``temporalio.worker.Replayer`` replays every history
under its original run id, and the events replayed from the original run have no marker.)
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from rath.contracts import STOP_OLD_CHILDREN, StopChildrenArgs

RESET_PATCH = "rath-reset-stops-old-children"
WAIT_SECONDS = 60.0


class OldChildren:
    """The children this run started, and the one stop of an old run's (workflow state)."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self._stop: asyncio.Task[None] | None = None

    async def before_start(self, child_id: str) -> None:
        """Call right before starting child ``child_id``: stops an old run's children first."""
        if self._stop is None and _past_a_reset(child_id):
            self._stop = asyncio.get_running_loop().create_task(self._stop_old(tuple(self.started)))
        if self._stop is not None:
            await asyncio.wait([self._stop])  # not `await`: a cancelled start must not stop it
            self._stop.result()
        self.started.append(child_id)

    async def _stop_old(self, keep: tuple[str, ...]) -> None:
        info = workflow.info()
        workflow.set_current_details("stopping the children of the run this reset replaced")
        result = await STOP_OLD_CHILDREN.execute(
            StopChildrenArgs(
                workflow_id=info.workflow_id,
                run_id=info.run_id,
                keep=keep,
                reason=f"superseded: {info.workflow_id!r} was reset (new run {info.run_id})",
                wait_seconds=WAIT_SECONDS,
            ),
            start_to_close_timeout=timedelta(seconds=WAIT_SECONDS + 60),
            heartbeat_timeout=timedelta(seconds=30),
            retry_policy=RetryPolicy(maximum_attempts=5),
            summary="stop the children of the run this reset replaced",
        )
        if result.cancelled or result.terminated:
            workflow.logger.info(
                "reset: old children cancelled %s, terminated %s",
                list(result.cancelled),
                list(result.terminated),
            )


def _past_a_reset(child_id: str) -> bool:
    """Whether starting ``child_id`` here is a reset run's first start past the reset point."""
    marker = f"{RESET_PATCH}-{child_id}"
    if workflow.unsafe.is_replaying():
        return workflow.patched(marker)  # as the live run decided (no marker: not here)
    info = workflow.info()
    reset = bool(info.original_execution_run_id) and info.original_execution_run_id != info.run_id
    return reset and workflow.patched(marker)
