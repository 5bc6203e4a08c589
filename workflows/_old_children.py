"""A reset forward stops its old run's children before it starts its own. See docs/modules.md."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from rath.contracts.children import STOP_OLD_CHILDREN, StopChildrenArgs

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
