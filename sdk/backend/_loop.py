"""The one event loop the backend plane's synchronous calls run their coroutines on.

OpenRath's code ran its async work on one shared loop thread; so does Rath's backend plane
(and the OpenRath MCP adapter, :func:`rath.tools.mcp.adapter.shared_mcp_loop`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class SharedLoop:
    """A daemon thread running one asyncio loop; ``run`` waits, ``submit`` does not."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="rath-backend", daemon=True
        )
        self._thread.start()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule ``coro``; never blocks."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` and wait for it.

        Raises:
            RuntimeError: Called from the loop's own thread (it would wait on itself).
        """
        if threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError("a synchronous call was made from the shared loop's own thread")
        return self.submit(coro).result()


_lock = threading.Lock()
_shared: list[SharedLoop] = []


def shared_loop() -> SharedLoop:
    """The process's shared loop, started on first use."""
    with _lock:
        if not _shared:
            _shared.append(SharedLoop())
        return _shared[0]


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the shared loop and wait for it (see :meth:`SharedLoop.run`)."""
    return shared_loop().run(coro)
