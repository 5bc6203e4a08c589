"""``Stream``, ``Event`` and ``Future``: ordered work on one sandbox, like CUDA streams.

Payloads queued on a stream run in order on a worker thread (OpenRath's API).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Generic, Protocol, Self, TypeVar

from rath.backend._types import BackendTool, ToolResult

T = TypeVar("T")


class Future(Generic[T]):
    """The eventual result of a submitted payload (or of a wait)."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self._value: T | None = None
        self._error: BaseException | None = None

    def done(self) -> bool:
        """Whether the result (or error) is in."""
        return self._done.is_set()

    def result(self) -> T:
        """Block until done; return the value or raise the error."""
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]

    def _set(self, value: T) -> None:
        self._value = value
        self._done.set()

    def _fail(self, error: BaseException) -> None:
        self._error = error
        self._done.set()


class Event:
    """A point in a stream: signalled when everything submitted before it has run."""

    def __init__(self) -> None:
        self._signalled = threading.Event()
        self._time: float | None = None

    def query(self) -> bool:
        """Whether the event has been reached."""
        return self._signalled.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until reached (or ``timeout`` seconds); whether it was."""
        return self._signalled.wait(timeout)

    def synchronize(self) -> None:
        """Block until reached."""
        self._signalled.wait()

    def elapsed_time(self, end: Event) -> float:
        """Milliseconds from this event to ``end``.

        Raises:
            RuntimeError: One of the two events has not been reached.
        """
        if self._time is None or end._time is None:
            raise RuntimeError("both events must be reached before elapsed_time")
        return (end._time - self._time) * 1000

    def _signal(self) -> None:
        self._time = time.perf_counter()
        self._signalled.set()


_Job = Callable[[], None]


class Dispatcher(Protocol):
    """What a stream needs of its sandbox."""

    def dispatch(self, call: BackendTool) -> ToolResult | bool: ...


class Stream:
    """An ordered queue of work on one sandbox; use it as a context manager.

    Args:
        sandbox: Where submitted payloads run.
        buffer: The most queued jobs (0: unbounded); ``submit`` blocks when it is full.
    """

    def __init__(self, sandbox: Dispatcher, *, buffer: int = 0) -> None:
        self.sandbox = sandbox
        self._jobs: queue.Queue[_Job | None] = queue.Queue(maxsize=buffer)
        self._idle = threading.Event()
        self._idle.set()
        self._pending = 0
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False

    def __enter__(self) -> Self:
        self._thread = threading.Thread(target=self._work, name="rath-backend-stream", daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.synchronize()
        self._closed = True
        self._jobs.put(None)
        if self._thread is not None:
            self._thread.join()

    def submit(self, call: BackendTool) -> Future[ToolResult | bool]:
        """Queue ``call``; its future resolves once it has run (after everything before it)."""
        future: Future[ToolResult | bool] = Future()

        def job() -> None:
            try:
                future._set(self.sandbox.dispatch(call))
            except BaseException as exc:  # the caller sees it through the future
                future._fail(exc)

        self._enqueue(job)
        return future

    def record_event(self) -> Event:
        """An event reached once everything submitted so far has run."""
        event = Event()
        self._enqueue(event._signal)
        return event

    def wait_event(self, event: Event, *, timeout: float | None = None) -> Future[None]:
        """Make later work wait for ``event`` (a ``TimeoutError`` future after ``timeout``)."""
        future: Future[None] = Future()

        def job() -> None:
            if event.wait(timeout):
                future._set(None)
            else:
                future._fail(TimeoutError(f"event not reached within {timeout} s"))

        self._enqueue(job)
        return future

    def wait_stream(self, other: Stream) -> Future[None]:
        """Make later work wait for everything submitted to ``other`` so far."""
        return self.wait_event(other.record_event())

    def synchronize(self) -> None:
        """Block until everything submitted has run."""
        self._check_open()
        self._idle.wait()

    def query(self) -> bool:
        """Whether everything submitted has run."""
        self._check_open()
        return self._idle.is_set()

    def _enqueue(self, job: _Job) -> None:
        self._check_open()
        with self._lock:
            self._pending += 1
            self._idle.clear()
        self._jobs.put(job)

    def _check_open(self) -> None:
        if self._closed or self._thread is None:
            raise RuntimeError("stream is closed" if self._closed else "stream is not started")

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            job()
            with self._lock:
                self._pending -= 1
                if self._pending == 0:
                    self._idle.set()
