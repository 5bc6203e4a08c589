"""Lazy results of session operations on lazy sessions (fork, detach, merge).

``plan.fork()`` on a session whose run has not finished returns at once: the new session's id
and lineage are known, its rows once ``plan``'s are. The same object works client-side and in
workflow code, because it only asks its sources whether they are done.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rath.session._session import Session


class Deferred:
    """The pending result of an operation over ``sources`` (a ``PendingResult``)."""

    def __init__(self, sources: tuple[Session, ...], compute: Callable[[], Session]) -> None:
        self._sources = sources
        self._compute = compute
        self._result: Session | None = None

    @property
    def run_id(self) -> str:
        """The run of the first source still pending (what this waits for)."""
        for source in self._sources:
            if source.pending and source.run_id is not None:
                return source.run_id
        return next((s.run_id for s in self._sources if s.run_id is not None), "(derived)")

    def done(self) -> bool:
        """True once every source is ready."""
        return not any(source.pending for source in self._sources)

    def result(self) -> Session:
        """Wait for the sources, then compute (once)."""
        if self._result is None:
            for source in self._sources:
                source.synchronize()
            self._result = self._compute()
        return self._result

    async def wait(self) -> None:
        """Await every source without blocking an event loop."""
        for source in self._sources:
            await source.ready()
