"""Deprecated: OpenRath's ``DedicatedEventLoopThread``, now the backend plane's shared loop.

OpenRath once gave its OpenSandbox backend a private event loop thread; all its async work
later moved to one shared loop, and this module stayed as a compatibility shim. Both names
warn (``DeprecationWarning``) and forward to :func:`rath.backend.shared_loop`.
"""

from __future__ import annotations

import warnings
from collections.abc import Coroutine
from typing import Any, TypeVar

from rath.backend._loop import SharedLoop, shared_loop

__all__ = ["DedicatedEventLoopThread", "shared_opensandbox_loop"]

T = TypeVar("T")


class DedicatedEventLoopThread:
    """Deprecated wrapper around the shared loop: use :func:`rath.backend.shared_loop`."""

    __slots__ = ("_loop",)

    def __init__(self) -> None:
        warnings.warn(
            "DedicatedEventLoopThread is deprecated; use rath.backend.shared_loop() instead",
            DeprecationWarning,
            stacklevel=2,
        )
        self._loop: SharedLoop = shared_loop()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the shared loop and wait for it.

        Raises:
            RuntimeError: Called from the shared loop's own thread.
        """
        return self._loop.run(coro)


def shared_opensandbox_loop() -> DedicatedEventLoopThread:
    """Deprecated: a :class:`DedicatedEventLoopThread` over the shared loop."""
    warnings.warn(
        "shared_opensandbox_loop() is deprecated; use rath.backend.shared_loop() instead",
        DeprecationWarning,
        stacklevel=2,
    )
    return DedicatedEventLoopThread()
