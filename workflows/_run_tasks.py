"""A durable forward's spawned tasks: waiting, failing fast, stopping. See docs/modules.md."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from datetime import timedelta
from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from rath.errors import BudgetExceededError

FAIL_FAST_PATCH = "rath-forward-fail-fast"
STOP_GRACE = timedelta(seconds=60)
"""How long a stopping forward waits for its children's clean-up before it closes."""


class RunTasks:
    """A forward's spawned tasks (workflow state; see docs/modules.md)."""

    def __init__(self, *, fail_fast: bool) -> None:
        self.fail_fast = fail_fast
        self.tasks: list[asyncio.Task[Any]] = []
        self.names: dict[asyncio.Task[Any], str] = {}
        self.failure: BaseException | None = None
        self.stopping = False
        self._failed: asyncio.Future[None] | None = None

    def start(self, name: str, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run ``coro`` as a task of the forward, named ``name`` (a child id, an operation)."""
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.append(task)
        self.names[task] = name
        if self.fail_fast:
            task.add_done_callback(self._watch)
        return task

    def pending(self) -> list[asyncio.Task[Any]]:
        """The tasks still running."""
        return [task for task in self.tasks if not task.done()]

    async def wait(self, task: asyncio.Task[Any]) -> None:
        """Wait for ``task``; raise a sibling's failure first if one fails meanwhile."""
        if not self.fail_fast:
            await asyncio.wait([task])
            return
        if not task.done() and self.failure is None:
            await asyncio.wait([task, self._failure_signal()], return_when=asyncio.FIRST_COMPLETED)
        if not task.done() and self.failure is not None:
            raise self.failure

    async def settle(self) -> None:
        """Wait for every task, ignoring their errors (the run is ending anyway)."""
        while pending := self.pending():
            await asyncio.wait(pending)

    async def drain(self) -> None:
        """Wait for every task, even ones ``forward`` never read; raise the first error."""
        while pending := self.pending():
            if not self.fail_fast:
                await asyncio.wait(pending)
                continue
            if self.failure is not None:
                raise self.failure
            # One future for them all (not a wake-up per task: a thousand would be O(n^2)).
            every: asyncio.Future[Any] = asyncio.gather(*pending, return_exceptions=True)
            failed: asyncio.Future[Any] = self._failure_signal()
            await asyncio.wait([every, failed], return_when=asyncio.FIRST_COMPLETED)
        if self.failure is not None:
            raise self.failure
        for task in self.tasks:
            if not task.cancelled() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]

    async def stop(self, reason: str, grace: timedelta = STOP_GRACE) -> tuple[list[str], list[str]]:
        """Cancel every task still running and wait for them within ``grace``."""
        self.stopping = True
        pending = self.pending()
        for task in pending:
            task.cancel(reason)  # a child run gets this as its cancel request's reason
        if pending:
            try:
                await workflow.wait_condition(
                    lambda: all(task.done() for task in pending), timeout=grace
                )
            except TimeoutError:
                workflow.logger.warning("%d tasks still stopping after %s", len(pending), grace)
        left = [self.names[task] for task in pending if not task.done()]
        return [self.names[task] for task in pending], left

    def _watch(self, task: asyncio.Task[Any]) -> None:
        """A task ended: remember the first failure (not a cancel, nor a budget refusal)."""
        if task.cancelled() or self.stopping or self.failure is not None:
            return
        error = task.exception()
        if error is None or isinstance(error, BudgetExceededError):
            return
        self.failure = error
        if self._failed is not None and not self._failed.done():
            self._failed.set_result(None)

    def _failure_signal(self) -> asyncio.Future[None]:
        """A future done once some task failed."""
        if self._failed is None:
            self._failed = asyncio.get_running_loop().create_future()
            if self.failure is not None:
                self._failed.set_result(None)
        return self._failed
