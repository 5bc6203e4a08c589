"""The LLM activity's side of streaming: publish deltas to the run's workflow stream, in batches.

Deltas are stamped with the agent, the loop round and this activity attempt, merged while they
wait (neighbouring text pieces become one event) and published on
:data:`~rath.llm.stream.TOPIC` through ``temporalio.contrib.workflow_streams``: one signal per
batch, so history grows with batches, not tokens. The first batch of an attempt goes out at
once (the time to the first token is what a reader notices); later ones every
``batch_seconds``; the rest before the activity returns.

An attempt after the first starts with a ``retry`` event: the caller drops what earlier
attempts of this round streamed. A batch that cannot be delivered is logged and dropped:
streaming is in addition to the durable result and never fails the model call.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from temporalio import activity
from temporalio.contrib.workflow_streams import WorkflowStreamClient

from rath.llm.chat_response import RathLLMStreamDelta
from rath.llm.stream import TOPIC, StreamOptions, coalesce

_CLOSE_TIMEOUT = 10.0


class DeltaPublisher:
    """Collects one attempt's deltas and publishes them to the run's stream in batches.

    Args:
        stream: A stream client for the activity's own workflow.
        options: The batch interval.
        stamp: ``agent``, ``round`` and ``attempt`` for every event.
    """

    def __init__(
        self, stream: WorkflowStreamClient, options: StreamOptions, stamp: dict[str, object]
    ) -> None:
        self._stream = stream
        self._topic = stream.topic(TOPIC, type=RathLLMStreamDelta)
        self._options = options
        self._stamp = stamp
        self._waiting: list[RathLLMStreamDelta] = []
        self._wake = asyncio.Event()
        self._sent_any = False
        self._closing = False
        self._task: asyncio.Task[None] | None = None

    def emit(self, delta: RathLLMStreamDelta) -> None:
        """Queue one delta (never blocks); the attempt's first goes out at once."""
        self._waiting.append(delta.model_copy(update=self._stamp))
        if not self._sent_any:
            self._wake.set()

    def start(self) -> None:
        """Start the batching task."""
        self._task = asyncio.create_task(self._run())

    async def close(self) -> None:
        """Stop batching and publish what is left (bounded)."""
        self._closing = True
        self._wake.set()
        try:
            async with asyncio.timeout(_CLOSE_TIMEOUT):
                if self._task is not None:
                    await self._task
                await self._flush(final=True)
        except TimeoutError:
            activity.logger.warning("stream: the last deltas were not delivered in time")

    async def _run(self) -> None:
        # Stopped by a flag, never by cancelling: on Python 3.11 a cancel that lands while
        # the wake-up completes is swallowed by ``asyncio.wait_for``, and the loop would go
        # on forever (a retried attempt, whose every delta wakes it, hung its activity).
        while not self._closing:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._options.batch_seconds):
                    await self._wake.wait()
            self._wake.clear()
            if not self._closing:
                await self._flush()

    async def _flush(self, *, final: bool = False) -> None:
        if not self._waiting and not final:
            return
        batch, self._waiting = coalesce(self._waiting), []
        for event in batch:
            self._topic.publish(event)
        self._sent_any = self._sent_any or any(not event.retry for event in batch)
        try:
            # Also re-sends a batch whose signal failed before (same sequence: no duplicates).
            await self._stream.flush()
        except Exception as exc:  # delivery is best effort: never fail the model call
            activity.logger.warning("stream: delta delivery failed (retried next batch): %s", exc)


@asynccontextmanager
async def publishing(
    options: StreamOptions, *, agent: str, round: int
) -> AsyncIterator[DeltaPublisher]:
    """A publisher for this activity attempt's deltas, flushed and stopped on exit."""
    attempt = activity.info().attempt
    stream = WorkflowStreamClient.from_within_activity()
    stamp: dict[str, object] = {"agent": agent, "round": round, "attempt": attempt}
    publisher = DeltaPublisher(stream, options, stamp)
    if attempt > 1:
        publisher.emit(RathLLMStreamDelta(retry=True))
    publisher.start()
    try:
        yield publisher
    finally:
        await publisher.close()
