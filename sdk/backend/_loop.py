"""The one event loop the backend plane's synchronous calls run their coroutines on."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None


def _running_loop() -> asyncio.AbstractEventLoop:
    global _loop, _thread  # noqa: PLW0603 (one loop per process, started on first use)
    with _lock:
        if _loop is None:
            _loop = asyncio.new_event_loop()
            _thread = threading.Thread(target=_loop.run_forever, name="rath-backend", daemon=True)
            _thread.start()
        return _loop


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the backend loop and wait for it.

    Raises:
        RuntimeError: Called from the backend loop's own thread (it would wait on itself).
    """
    loop = _running_loop()
    if threading.current_thread() is _thread:
        coro.close()
        raise RuntimeError("a backend's synchronous call was made from its own event loop")
    return asyncio.run_coroutine_threadsafe(coro, loop).result()
