"""The backend ABC, the sandbox handle and its spec (OpenRath's ``rath.backend.abc``)."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import ClassVar, Self

from rath.backend._dispatch import as_called
from rath.backend._loop import run
from rath.backend.capabilities import Capabilities
from rath.backend.errors import BackendSandboxClosed, UnsupportedBackendTool
from rath.backend.results import ToolExecutionFailure, ToolResult
from rath.backend.spec import BackendSandboxSpec
from rath.backend.stream import Stream
from rath.backend.tool_types import ALL_CALLS, BackendTool

__all__ = ["Backend", "BackendSandbox", "BackendSandboxSpec"]


@dataclass(eq=False)
class BackendSandbox:
    """A sandbox a :class:`~rath.backend.Backend` opened (reference count 0 when opened).

    ``acquire`` adds a holder, ``release`` drops one and closes the sandbox at zero; ``with
    sandbox:`` is one of each.
    """

    backend: Backend
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

    def __exit__(self, *exc_info: object) -> None:
        self.release()


@dataclass
class _Books:
    """What the sync facade keeps of a backend's sandboxes."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    open: set[BackendSandbox] = field(default_factory=set)
    closing: set[BackendSandbox] = field(default_factory=set)


class Backend(ABC):
    """A sandbox backend: implement ``capabilities``, ``_aopen``, ``_aclose`` and ``_adispatch``.

    ``open``, ``close`` and ``dispatch`` run those hooks on the backend plane's own event loop,
    so they must not be called from it. Like OpenRath's, the class needs no ``__init__`` call:
    a subclass's ``__init__`` may skip ``super().__init__()``.
    """

    name: ClassVar[str] = ""

    @property
    def _books(self) -> _Books:
        # dict.setdefault is atomic: two threads' first calls share one record.
        books: _Books = self.__dict__.setdefault("_backend_books", _Books())
        return books

    @classmethod
    def is_available(cls) -> bool:
        """Whether this backend can run here."""
        return True

    @classmethod
    @abstractmethod
    def capabilities(cls) -> Capabilities:
        """What the backend can do."""

    @classmethod
    def supported_calls(cls) -> frozenset[type[BackendTool]]:
        """The payload types :meth:`dispatch` runs."""
        return ALL_CALLS

    def sandbox_count(self) -> int:
        """How many sandboxes this backend has open."""
        books = self._books
        with books.lock:
            return len(books.open)

    def open(self, spec: BackendSandboxSpec | None = None) -> BackendSandbox:
        """Open a sandbox (reference count 0: ``acquire`` it, or use ``with``)."""
        return self._track(run(self._aopen(spec or BackendSandboxSpec())))

    def close(self, sandbox: BackendSandbox) -> None:
        """Close ``sandbox`` (idempotent).

        ``_aclose`` runs while the handle is still open (OpenRath's order: a hook may check
        ``sandbox.closed``); the handle is closed afterwards, even if the hook fails.
        """
        books = self._books
        with books.lock:
            if sandbox.closed or sandbox in books.closing:
                return
            books.closing.add(sandbox)
        try:
            run(self._aclose(sandbox))
        finally:
            with sandbox._refcount_lock:
                sandbox.closed = True
            with books.lock:
                books.closing.discard(sandbox)
                books.open.discard(sandbox)

    def dispatch(self, sandbox: BackendSandbox, call: BackendTool) -> ToolResult | bool:
        """Run ``call`` in ``sandbox`` (a closed one answers a ``sandbox_closed`` failure).

        Raises:
            UnsupportedBackendTool: This backend does not run the payload's type.
        """
        if type(call) not in self.supported_calls():
            raise UnsupportedBackendTool(type(call).__name__, self.name)
        if sandbox.closed:
            return ToolExecutionFailure("sandbox_closed", f"sandbox {sandbox.handle!r} is closed")
        return run(as_called(self._adispatch(sandbox, call)))

    def _track(self, sandbox: BackendSandbox) -> BackendSandbox:
        """Count ``sandbox`` as open (what :meth:`open` does with a new handle)."""
        books = self._books
        with books.lock:
            books.open.add(sandbox)
        return sandbox

    @abstractmethod
    async def _aopen(self, spec: BackendSandboxSpec) -> BackendSandbox:
        """Open a sandbox for ``spec``."""

    @abstractmethod
    async def _aclose(self, sandbox: BackendSandbox) -> None:
        """Release what ``sandbox`` holds."""

    @abstractmethod
    async def _adispatch(self, sandbox: BackendSandbox, call: BackendTool) -> ToolResult | bool:
        """Run ``call``; expected failures come back as ``ToolExecutionFailure``."""
