"""Pending results: what stands behind a lazy session until it is done. See docs/modules.md."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

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
        """True once every source is ready (stops at the first pending run it meets)."""
        seen: set[int] = {id(self)}
        stack: list[Deferred[Any]] = [self]
        while stack:
            step = stack.pop()
            deeper = []
            for source in step._sources:
                pending = getattr(source, "_pending", None)
                if isinstance(pending, Deferred):
                    if pending._result is None and id(pending) not in seen:
                        seen.add(id(pending))
                        deeper.append(pending)
                elif pending is not None and not pending.done():
                    return False  # a run still going: no need to look further down
            stack.extend(deeper)
        return True

    def result(self) -> T:
        """Wait for the sources, then compute (once); inner steps first, so none recurses."""
        if self._result is None:
            inner, _ = self._chain()
            for step in inner:
                step._compute_once()
            self._compute_once()
        assert self._result is not None
        return self._result

    async def wait(self) -> None:
        """Await every run the chain depends on without blocking an event loop."""
        _, leaves = self._chain()
        for leaf in leaves:
            await leaf.ready()

    def _compute_once(self) -> None:
        if self._result is None:
            for source in self._sources:
                source.synchronize()  # its own Deferred, if any, is computed already
            self._result = self._compute()

    def _chain(self) -> tuple[list[Deferred[Any]], list[Source]]:
        """The unfinished steps below this one (deepest first) and the sources they wait on."""
        inner: list[Deferred[Any]] = []
        leaves: list[Source] = []
        seen: set[int] = {id(self)}
        stack: list[tuple[Deferred[Any], bool]] = [(self, False)]
        while stack:
            step, expanded = stack.pop()
            if expanded:
                if step is not self:
                    inner.append(step)
                continue
            stack.append((step, True))
            for source in step._sources:
                pending = getattr(source, "_pending", None)
                if isinstance(pending, Deferred):
                    if pending._result is None and id(pending) not in seen:
                        seen.add(id(pending))
                        stack.append((pending, False))
                elif pending is not None and id(source) not in seen:
                    seen.add(id(source))
                    leaves.append(source)
        return inner, leaves
