"""The pools a process's workers share close when the last worker stops, not the first.

A ``rath worker`` runs three or more Temporal workers over one plugin's activities; the first
to stop used to close the chat clients under an LLM call another one still ran (seen as a
SIGTERMed worker's lost attempt in tests/tools/test_at_most_once.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any, cast

from rath.plugin import SharedRun


class Pool:
    """An owner whose ``running()`` says when it opens and closes."""

    def __init__(self) -> None:
        self.events: list[str] = []

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        self.events.append("open")
        try:
            yield
        finally:
            self.events.append("close")


async def test_the_last_worker_to_stop_closes_the_shared_pools() -> None:
    pool = Pool()
    shared = SharedRun(cast(Any, pool))
    async with contextlib.AsyncExitStack() as first:
        await first.enter_async_context(shared.running())
        async with shared.running():
            assert pool.events == ["open"]  # one pool for both workers
        assert pool.events == ["open"]  # the first worker stopped; the other still runs
    assert pool.events == ["open", "close"]
    async with shared.running():  # a worker started later opens them again
        assert pool.events == ["open", "close", "open"]
    assert pool.events == ["open", "close", "open", "close"]
