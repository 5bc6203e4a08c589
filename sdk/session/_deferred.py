"""Pending results: what stands behind a lazy session until its run (or operation) finishes.

A lazy session holds a :class:`PendingResult`: a client-side run handle, a workflow task, or a
:class:`Deferred` operation (``fork``, ``detach``, ``merge`` of a lazy session). ``Deferred``
only asks its sources whether they are done, so the same object works client-side and in
workflow code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class PendingResult(Protocol[T_co]):
    """The in-flight run behind a lazy session."""

    @property
    def run_id(self) -> str:
        """The Temporal workflow id of the run (shown in errors and repr)."""
        ...

    def done(self) -> bool:
        """True once the run has finished (successfully or not)."""
        ...

    def result(self) -> T_co:
        """Wait for the run and return its output session, or raise its error."""
        ...


class Source(Protocol):
    """What a :class:`Deferred` needs of the sessions it waits for."""

    @property
    def pending(self) -> bool:
        """True while the source is unfinished."""
        ...

    @property
    def run_id(self) -> str | None:
        """The run that produced the source, if any."""
        ...

    def synchronize(self) -> object:
        """Wait for the source."""
        ...

    async def ready(self) -> object:
        """Await the source without blocking an event loop."""
        ...


class Deferred(PendingResult[T]):
    """The pending result of an operation over ``sources``."""

    def __init__(self, sources: tuple[Source, ...], compute: Callable[[], T]) -> None:
        self._sources = sources
        self._compute = compute
        self._result: T | None = None

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

    def result(self) -> T:
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
