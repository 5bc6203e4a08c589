"""The P1 baseline: a bare workflow running two no-op activities per round."""

from __future__ import annotations

from datetime import timedelta

from temporalio import activity, workflow


@activity.defn(name="bench.noop")
async def noop(_: int) -> int:
    """A bare activity: no I/O."""
    return 0


@workflow.defn(name="bench.BareRounds")
class BareRounds:
    """``rounds`` rounds of two sequential no-op activities."""

    @workflow.run
    async def run(self, rounds: int) -> int:
        """Run the rounds."""
        for i in range(rounds):
            for _ in range(2):
                await workflow.execute_activity(
                    noop, i, start_to_close_timeout=timedelta(seconds=30)
                )
        return rounds
