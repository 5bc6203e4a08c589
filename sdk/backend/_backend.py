"""``Backend``: a kind of sandbox: async hooks, and the synchronous calls OpenRath code makes."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from typing import ClassVar

from rath.backend._errors import UnsupportedBackendTool
from rath.backend._handle import BackendSandbox
from rath.backend._loop import run
from rath.backend._types import (
    BackendSandboxSpec,
    BackendTool,
    BackendToolCodeRun,
    BackendToolCommandRun,
    BackendToolFilesExists,
    BackendToolFilesList,
    BackendToolFilesRead,
    BackendToolFilesWrite,
    Capabilities,
    ToolExecutionFailure,
    ToolResult,
)

ALL_CALLS: frozenset[type[BackendTool]] = frozenset(
    {
        BackendToolCommandRun,
        BackendToolFilesRead,
        BackendToolFilesWrite,
        BackendToolFilesList,
        BackendToolFilesExists,
        BackendToolCodeRun,
    }
)


class Backend(ABC):
    """A sandbox backend: implement ``_aopen``, ``_aclose`` and ``_adispatch``.

    ``open``, ``close`` and ``dispatch`` run those hooks on the backend plane's own event loop,
    so they must not be called from it.
    """

    name: ClassVar[str] = ""

    def __init__(self) -> None:
        self._open: set[BackendSandbox] = set()
        self._lock = threading.Lock()

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
        with self._lock:
            return len(self._open)

    def open(self, spec: BackendSandboxSpec | None = None) -> BackendSandbox:
        """Open a sandbox (reference count 0: ``acquire`` it, or use ``with``)."""
        sandbox = run(self._aopen(spec or BackendSandboxSpec()))
        with self._lock:
            self._open.add(sandbox)
        return sandbox

    def close(self, sandbox: BackendSandbox) -> None:
        """Close ``sandbox`` (idempotent)."""
        with sandbox._refcount_lock:
            if sandbox.closed:
                return
            sandbox.closed = True
        with self._lock:
            self._open.discard(sandbox)
        run(self._aclose(sandbox))

    def dispatch(self, sandbox: BackendSandbox, call: BackendTool) -> ToolResult | bool:
        """Run ``call`` in ``sandbox`` (a closed one answers a ``sandbox_closed`` failure).

        Raises:
            UnsupportedBackendTool: This backend does not run the payload's type.
        """
        if type(call) not in self.supported_calls():
            raise UnsupportedBackendTool(type(call).__name__, self.name)
        if sandbox.closed:
            return ToolExecutionFailure("sandbox_closed", f"sandbox {sandbox.handle!r} is closed")
        return run(self._adispatch(sandbox, call))

    @abstractmethod
    async def _aopen(self, spec: BackendSandboxSpec) -> BackendSandbox:
        """Open a sandbox for ``spec``."""

    @abstractmethod
    async def _aclose(self, sandbox: BackendSandbox) -> None:
        """Release what ``sandbox`` holds."""

    @abstractmethod
    async def _adispatch(self, sandbox: BackendSandbox, call: BackendTool) -> ToolResult | bool:
        """Run ``call``; expected failures come back as ``ToolExecutionFailure``."""
