"""``CloseSandboxWorkflow``: close an unheld sandbox on its own worker. See docs/modules.md."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from rath.backend.lease import Lease
    from rath.contracts.runs import CLOSE_SANDBOX_RUN
    from rath.contracts.tools import CLOSE_SANDBOX, CloseArgs


@workflow.defn(name=CLOSE_SANDBOX_RUN.name, sandboxed=False)
class CloseSandboxWorkflow:
    """Run ``rath.sandbox.close`` on the owner's queue (or any worker when none owns it)."""

    @workflow.run
    async def run(self, lease: Lease) -> bool:
        """Delete the allocated workspace; returns whether something was deleted."""
        return await CLOSE_SANDBOX.execute(
            CloseArgs(lease=lease),
            task_queue=lease.owner,
            start_to_close_timeout=timedelta(minutes=5),
            summary=f"close sandbox {lease.sandbox_id.hex[:8]}",
        )
