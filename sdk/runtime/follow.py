"""A run's model deltas, followed from the client (``on_event`` and later). See docs/modules.md."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from datetime import timedelta

from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowQueryFailedError,
    WorkflowUpdateFailedError,
)
from temporalio.contrib.workflow_streams import WorkflowStreamClient
from temporalio.service import RPCError, RPCStatusCode

from rath.errors import ConfigError
from rath.llm.chat_response import RathLLMStreamDelta
from rath.llm.stream import TOPIC
from rath.runtime.run_query import run_id_of
from rath.runtime.runtime import get_runtime
from rath.session.deferred import PendingResult
from rath.session.session import Session

EventCallback = Callable[[RathLLMStreamDelta], None]
"""What ``on_event`` receives: one event at a time, in order."""

logger = logging.getLogger("rath.streaming")

POLL_COOLDOWN = timedelta(milliseconds=20)
"""Pause between a follower's polls once caught up (a poll waits for new events anyway)."""
DRAIN_TIMEOUT = 30.0
"""After a run ended, the longest its output waits for the last events to be delivered."""
_RECONNECT_SECONDS = 60.0
_FIRST_RETRY_DELAY = 0.05
_START_WAIT_SECONDS = 10.0
_REFUSED_RETRY_DELAY = 0.5
# Callbacks get threads of their own: slow ones must not take the default executor's threads,
# which the embedded worker's activities use for store reads and writes.
_CALLBACKS = concurrent.futures.ThreadPoolExecutor(8, thread_name_prefix="rath-on-event")
_REFUSED_FOR_NOW = frozenset({RPCStatusCode.FAILED_PRECONDITION, RPCStatusCode.RESOURCE_EXHAUSTED})


async def stream_events(
    client: Client,
    run_id: str,
    *,
    from_offset: int = 0,
    start_timeout: float = _START_WAIT_SECONDS,
) -> AsyncIterator[RathLLMStreamDelta]:
    """The events of run ``run_id`` from ``from_offset`` until the run ends, each once.

    Raises:
        ConfigError: The run does not exist, or does not stream (no ``on_event``).
        RPCError: The server stayed unreachable.
    """
    stream = WorkflowStreamClient.create(client, run_id)
    loop = asyncio.get_running_loop()
    offset, latest = from_offset, (0, 0)
    missing_since: float | None = None
    failing_since: float | None = None
    refused = False
    delay = _FIRST_RETRY_DELAY
    while True:
        try:
            async for item in stream.subscribe(
                [TOPIC],
                from_offset=offset,
                result_type=RathLLMStreamDelta,
                poll_cooldown=POLL_COOLDOWN,
            ):
                missing_since = failing_since = None
                refused = False
                delay = _FIRST_RETRY_DELAY
                offset = item.offset + 1
                event = item.data.model_copy(update={"offset": item.offset})
                if event.key < latest:
                    continue  # a superseded attempt that was still publishing
                latest = event.key
                yield event
            if not await _reset_goes_on(client, run_id):
                return
        except (WorkflowUpdateFailedError, WorkflowQueryFailedError) as exc:
            raise ConfigError(
                f"run {run_id!r} does not stream its model output (start it with on_event): "
                f"{getattr(exc, 'cause', None) or exc}"
            ) from None
        except RPCError as exc:
            now = loop.time()
            if exc.status == RPCStatusCode.NOT_FOUND:
                missing_since = missing_since or now
                if now - missing_since > start_timeout:
                    raise ConfigError(f"no run {run_id!r} to follow") from None
            elif exc.status in _REFUSED_FOR_NOW:
                # The run takes no more polls (each is an update: Temporal caps them per run
                # and in flight). Its events stay in its stream, so wait, without a deadline,
                # for it to continue as new (a fresh allowance) or to end (read by query).
                if not refused:
                    logger.info("run %r takes no more polls for now (%s); waiting", run_id, exc)
                refused = True
                delay = max(delay, _REFUSED_RETRY_DELAY)
            else:
                failing_since = failing_since or now
                if now - failing_since > _RECONNECT_SECONDS:
                    raise
            await asyncio.sleep(delay)  # then re-open from the next offset
            delay = min(delay * 2, 1.0)


async def _reset_goes_on(client: Client, run_id: str) -> bool:
    """Whether the run whose stream just ended was reset: its workflow id goes on."""
    description = await client.get_workflow_handle(run_id).describe()
    return description.status == WorkflowExecutionStatus.RUNNING


class EventFollower:
    """A run being followed on the background runtime (returned by :func:`follow_events`)."""

    def __init__(self, run_id: str, from_offset: int) -> None:
        self.run_id = run_id
        self.next_offset = from_offset
        """The offset to resume from: one past the last event delivered."""
        self.delivered = 0
        """How many events the callback was given."""
        self._future: concurrent.futures.Future[None] | None = None

    def wait(self, timeout: float | None = None) -> None:
        """Block until the run ended and every event was delivered.

        Raises:
            TimeoutError: Not finished within ``timeout`` seconds.
            ConfigError: The run does not exist or does not stream.
        """
        assert self._future is not None
        self._future.result(timeout=timeout)

    def done(self) -> bool:
        """True once following has ended (the run ended, it failed, or it was cancelled)."""
        return self._future is not None and self._future.done()

    def cancel(self) -> None:
        """Stop following (events not yet delivered are not delivered)."""
        if self._future is not None:
            self._future.cancel()

    async def run(self, client: Client, on_event: EventCallback) -> None:
        """Deliver the run's events to ``on_event`` (on a worker thread) until it ends."""
        failed = False
        async for event in stream_events(client, self.run_id, from_offset=self.next_offset):
            # Counted first: once handed to the thread the call happens, even if this task
            # is cancelled while it runs, so a resume from next_offset never repeats it.
            self.next_offset = (event.offset or 0) + 1
            self.delivered += 1
            try:
                await asyncio.get_running_loop().run_in_executor(_CALLBACKS, on_event, event)
            except Exception:
                if not failed:  # once per run: a broken callback would flood the log
                    logger.exception(
                        "on_event raised for run %r; later events still come", self.run_id
                    )
                failed = True


def follow_events(
    run: Session | str, on_event: EventCallback, *, from_offset: int = 0
) -> EventFollower:
    """Call ``on_event`` with each model delta of ``run`` from ``from_offset`` until it ends.

    Raises:
        ConfigError: ``run`` is a session that no run produced.
    """
    run_id = run_id_of(run, "it has no events")
    runtime = get_runtime()
    follower = EventFollower(run_id, from_offset)

    async def follow() -> None:
        await follower.run(await runtime.client(), on_event)

    follower._future = runtime.submit(follow())
    return follower


class FollowedRun:
    """A lazy run whose result is ready only once a follow-up task on it finished too."""

    def __init__(
        self,
        run: PendingResult[Session],
        follower: concurrent.futures.Future[None],
        *,
        what: str = "delivering its events",
    ) -> None:
        self._run = run
        self._follower = follower
        self._what = what

    @property
    def run_id(self) -> str:
        """The workflow id."""
        return self._run.run_id

    @property
    def on_read(self) -> Callable[[Session], None] | None:
        """The run's hook for the session that publishes its result (``RunHandle.on_read``)."""
        return getattr(self._run, "on_read", None)

    def done(self) -> bool:
        """True once the run and its follow-up finished."""
        return self._run.done() and self._follower.done()

    def result(self) -> Session:
        """Wait for the run and its follow-up; then its output (or its error)."""
        try:
            return self._run.result()
        finally:
            self._drained()

    async def wait(self) -> None:
        """Await the run and its follow-up without blocking the loop."""
        waiter = getattr(self._run, "wait", None)
        if waiter is not None:
            await waiter()
        # asyncio.wait, not wait_for: a timeout or a cancelled caller must not cancel the
        # follower, which other waiters of this output (and its callback) share.
        following = asyncio.wrap_future(self._follower)
        done, _ = await asyncio.wait({following}, timeout=DRAIN_TIMEOUT)
        if not done:
            self._failed(TimeoutError())
        elif not following.cancelled() and (exc := following.exception()) is not None:
            self._failed(exc)

    def _drained(self) -> None:
        try:
            self._follower.result(timeout=DRAIN_TIMEOUT)
        except Exception as exc:
            self._failed(exc)

    def _failed(self, exc: BaseException) -> None:
        if isinstance(exc, concurrent.futures.CancelledError):
            return
        logger.warning("run %r: %s did not finish: %r", self.run_id, self._what, exc)


def follow_started_run(
    out: Session, on_event: EventCallback, started: concurrent.futures.Future[None]
) -> None:
    """Deliver the events of ``out``'s run (just started lazily) to ``on_event``."""
    run = out._pending
    if run is None or out.run_id is None:
        return
    runtime = get_runtime()
    follower = EventFollower(out.run_id, 0)

    async def ended() -> None:
        waiter = getattr(run, "wait", None)
        with contextlib.suppress(Exception):
            await (waiter() if waiter is not None else asyncio.to_thread(run.result))

    async def follow() -> None:
        # Not cancelled afterwards: cancelling a wrapped future would cancel the run's own.
        waiting = asyncio.ensure_future(ended())
        await asyncio.wait(
            [asyncio.wrap_future(started), waiting], return_when=asyncio.FIRST_COMPLETED
        )
        if not started.done():
            return  # the run failed before it started: nothing to follow
        await follower.run(await runtime.client(), on_event)

    delivered = runtime.submit(follow())
    runtime.track(out.run_id, delivered)  # an unread run's last events reach on_event too
    out.attach_pending(FollowedRun(run, delivered))
