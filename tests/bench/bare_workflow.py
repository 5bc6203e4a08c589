"""The bare baselines: P1's no-op activity rounds (and with a model call), P3s's child fan-out."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import activity, workflow

with workflow.unsafe.imports_passed_through():
    from openai import AsyncOpenAI


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


class ModelCall:
    """P1's floor: the round's model call and nothing else (no transcript, no tool)."""

    def __init__(self, base_url: str) -> None:
        self.client = AsyncOpenAI(base_url=base_url, api_key="bench-key", max_retries=0)

    @activity.defn(name="bench.model_call")
    async def call(self, _: int) -> int:
        """One chat completion of a one-message request, its answer read as JSON."""
        body = {"model": "fake", "messages": [{"role": "user", "content": "go"}]}
        await self.client.post("/chat/completions", body=body, cast_to=object)
        return 0


@workflow.defn(name="bench.ModelRounds")
class ModelRounds:
    """``rounds`` rounds of a model call and a no-op activity: the least any agent round does."""

    @workflow.run
    async def run(self, rounds: int) -> int:
        """Run the rounds."""
        for i in range(rounds):
            await workflow.execute_activity(
                "bench.model_call", i, start_to_close_timeout=timedelta(seconds=30)
            )
            await workflow.execute_activity(noop, i, start_to_close_timeout=timedelta(seconds=30))
        return rounds


@workflow.defn(name="bench.BareChild")
class BareChild:
    """One no-op activity: the bare counterpart of one agent call."""

    @workflow.run
    async def run(self, i: int) -> int:
        """Run it."""
        return await workflow.execute_activity(
            noop, i, start_to_close_timeout=timedelta(seconds=30)
        )


@workflow.defn(name="bench.BareFanout")
class BareFanout:
    """``n`` concurrent child workflows of one no-op activity each (P3s's baseline)."""

    @workflow.run
    async def run(self, n: int) -> int:
        """Start them all, wait for all."""
        children = [
            workflow.execute_child_workflow(
                BareChild.run, i, id=f"{workflow.info().workflow_id}-{i}"
            )
            for i in range(n)
        ]
        return len(await asyncio.gather(*children))


@workflow.defn(name="bench.BareSession")
class BareSession:
    """``activities`` sequential no-op activities: P5's bare counterpart of one session."""

    @workflow.run
    async def run(self, activities: int) -> int:
        """Run them."""
        for i in range(activities):
            await workflow.execute_activity(noop, i, start_to_close_timeout=timedelta(seconds=30))
        return activities
