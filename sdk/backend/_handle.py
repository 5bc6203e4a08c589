"""``BackendSandbox``: an open sandbox, shared by reference count like OpenRath's."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from types import TracebackType
from typing import Protocol, Self

from rath.backend._errors import BackendSandboxClosed
from rath.backend._stream import Stream
from rath.backend._types import BackendTool, ToolResult
from rath.backend.spec import BackendSandboxSpec


class Owner(Protocol):
    """What a handle needs of its :class:`~rath.backend.Backend`."""

    @property
    def name(self) -> str: ...

    def close(self, sandbox: BackendSandbox) -> None: ...

    def dispatch(self, sandbox: BackendSandbox, call: BackendTool) -> ToolResult | bool: ...


@dataclass(eq=False)
class BackendSandbox:
    """A sandbox a :class:`~rath.backend.Backend` opened (reference count 0 when opened).

    ``acquire`` adds a holder, ``release`` drops one and closes the sandbox at zero; ``with
    sandbox:`` is one of each.
    """

    backend: Owner
    handle: str
    spec: BackendSandboxSpec | None = None
    closed: bool = False
    _refcount: int = 0
    _refcount_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def refcount(self) -> int:
        """How many holders have acquired the sandbox and not released it."""
        return self._refcount

    def acquire(self) -> BackendSandbox:
        """Add a holder (+1).

        Raises:
            BackendSandboxClosed: The sandbox is closed.
        """
        with self._refcount_lock:
            if self.closed:
                raise BackendSandboxClosed(self.handle)
            self._refcount += 1
        return self

    def release(self) -> None:
        """Drop a holder (-1); at zero the backend closes the sandbox. No-op once closed."""
        with self._refcount_lock:
            if self.closed:
                return
            self._refcount -= 1
            last = self._refcount <= 0
        if last:
            self.backend.close(self)

    def dispatch(self, call: BackendTool) -> ToolResult | bool:
        """Run one payload in the sandbox.

        Raises:
            BackendSandboxClosed: The sandbox is closed.
            UnsupportedBackendTool: The backend does not run this payload type.
        """
        if self.closed:
            raise BackendSandboxClosed(self.handle)
        return self.backend.dispatch(self, call)

    def stream(self, *, buffer: int = 0) -> Stream:
        """A :class:`~rath.backend.Stream` of payloads run in order on this sandbox."""
        return Stream(self, buffer=buffer)

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
