"""Each session's sandbox, kept open on the worker that owns it and reused across tool calls.

See docs/sandboxes.md, "Where the code is".
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from rath.backend.sandboxes import SandboxBackend, open_sandbox
from rath.backend.spec import BackendSandboxSpec

DEFAULT_IDLE_TIMEOUT = 120.0
"""Seconds an unused sandbox stays open (a container keeps its memory meanwhile)."""

_log = logging.getLogger("rath.sandbox")


@dataclass
class _Entry:
    sandbox: SandboxBackend
    in_flight: int = 0
    idle: asyncio.TimerHandle | None = None


class SandboxPool:
    """Open sandboxes by key (a sandbox id and its spec), one per key, shared by its calls.

    Args:
        idle_timeout: Seconds after its last call that a sandbox is closed.
    """

    def __init__(self, *, idle_timeout: float = DEFAULT_IDLE_TIMEOUT) -> None:
        self.idle_timeout = idle_timeout
        self._entries: dict[str, _Entry] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._closing: set[asyncio.Task[None]] = set()

    @asynccontextmanager
    async def use(self, key: str, spec: BackendSandboxSpec) -> AsyncIterator[SandboxBackend]:
        """The open sandbox for ``key`` (opened from ``spec`` the first time).

        Raises:
            SandboxUnavailableError: The backend cannot run on this worker.
            SandboxError: The backend could not open the sandbox.
        """
        entry = await self._acquire(key, spec)
        try:
            yield entry.sandbox
        finally:
            entry.in_flight -= 1
            if entry.in_flight == 0 and self._entries.get(key) is entry:
                loop = asyncio.get_running_loop()
                entry.idle = loop.call_later(self.idle_timeout, self._expire, key, entry)

    def is_open(self, key: str) -> bool:
        """Whether a sandbox is pooled under ``key``."""
        return key in self._entries

    def discard(self, key: str, sandbox: SandboxBackend) -> None:
        """Drop ``sandbox`` (its backend failed): close it; the next call opens anew.

        Only if it is still the one pooled under ``key``: a call that failed on a sandbox
        already replaced must not close its successor.
        """
        entry = self._entries.get(key)
        if entry is not None and entry.sandbox is sandbox:
            del self._entries[key]
            self._forget_lock(key)
            self._close_later(entry)

    async def close(self, prefix: str) -> None:
        """Close every sandbox whose key starts with ``prefix`` (a sandbox id), and wait."""
        keys = [key for key in self._entries if key.startswith(prefix)]
        entries = [self._entries.pop(key) for key in keys]
        for key in keys:
            self._forget_lock(key)
        await asyncio.gather(*(_close(entry) for entry in entries))

    async def aclose(self) -> None:
        """Close every sandbox (at worker shutdown) and wait for closes already under way."""
        await self.close("")
        if self._closing:
            await asyncio.wait(set(self._closing))

    async def _acquire(self, key: str, spec: BackendSandboxSpec) -> _Entry:
        entry = self._entries.get(key)
        if entry is None:
            async with self._locks.setdefault(key, asyncio.Lock()):
                entry = self._entries.get(key)
                if entry is None:
                    sandbox = open_sandbox(spec)
                    await sandbox.__aenter__()
                    entry = self._entries[key] = _Entry(sandbox)
        # No await since the checks above: the idle timer cannot have closed this entry.
        if entry.idle is not None:
            entry.idle.cancel()
            entry.idle = None
        entry.in_flight += 1
        return entry

    def _expire(self, key: str, entry: _Entry) -> None:
        if self._entries.get(key) is entry and entry.in_flight == 0:
            del self._entries[key]
            self._forget_lock(key)
            self._close_later(entry)

    def _forget_lock(self, key: str) -> None:
        lock = self._locks.get(key)
        if lock is not None and not lock.locked():
            del self._locks[key]

    def _close_later(self, entry: _Entry) -> None:
        task = asyncio.get_running_loop().create_task(_close(entry))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)


async def _close(entry: _Entry) -> None:
    if entry.idle is not None:
        entry.idle.cancel()
    try:
        await entry.sandbox.aclose()
    except Exception:  # closing is best effort: a container the daemon lost is gone anyway
        _log.warning("closing the %r sandbox failed", entry.sandbox.name, exc_info=True)
