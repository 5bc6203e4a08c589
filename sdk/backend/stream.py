"""``Stream``, ``Event`` and ``Future``: ordered work on one sandbox, like CUDA streams.

Payloads queued on a stream run in order on a worker thread (OpenRath's API and semantics).
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Any, Generic, Protocol, Self, TypeVar

from rath.backend.results import ToolResult
from rath.backend.tool_types import BackendTool

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


class Dispatcher(Protocol):
    """What a stream needs of its sandbox."""

    def dispatch(self, call: BackendTool) -> ToolResult | bool:
        """Run one payload."""


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


class _Op:
    """One queued piece of work: ``run`` it, or ``fail`` it after a fatal worker error."""

    counted = True  # whether it keeps the stream busy (``query``)
    future: Future[Any] | None = None  # what its caller waits on, if anything

    def run(self, sandbox: Dispatcher) -> None:
        raise NotImplementedError

    def fail(self, error: BaseException) -> None:
        """Resolve the op's waiter with ``error`` (an op nobody waits on is dropped)."""
        if self.future is not None:
            self.future._fail(error)


class _Call(_Op):
    def __init__(self, call: BackendTool) -> None:
        self.call = call
        self.future: Future[ToolResult | bool] = Future()

    def run(self, sandbox: Dispatcher) -> None:
        try:
            result = sandbox.dispatch(self.call)
        except BaseException as exc:
            self.future._fail(exc)
            if not isinstance(exc, Exception):
                raise  # fatal: the worker fails what is queued, then dies visibly
        else:
            self.future._set(result)


class _Record(_Op):
    def __init__(self) -> None:
        self.event = Event()

    def run(self, sandbox: Dispatcher) -> None:
        self.event._signal()

    def fail(self, error: BaseException) -> None:
        # The stream died before reaching the event: signal it anyway, so that nothing waiting
        # on it (another stream's wait_event, synchronize) hangs; the work before it failed.
        self.event._signal()


class _Wait(_Op):
    def __init__(self, event: Event, timeout: float | None) -> None:
        self.event = event
        self.timeout = timeout
        self.future: Future[None] = Future()

    def run(self, sandbox: Dispatcher) -> None:
        if self.event.wait(self.timeout):
            self.future._set(None)
        else:
            self.future._fail(TimeoutError(f"wait_event timed out after {self.timeout}s"))


class _Sync(_Op):
    counted = False  # so that query() is True as soon as synchronize() returns

    def __init__(self) -> None:
        self.reached = threading.Event()

    def run(self, sandbox: Dispatcher) -> None:
        self.reached.set()

    def fail(self, error: BaseException) -> None:
        self.reached.set()


class Stream:
    """An ordered queue of work on one sandbox, run by a worker thread; a context manager.

    Leaving the ``with`` block runs what is queued, then stops the worker; a second exit does
    nothing, and every method then raises ``RuntimeError("stream is closed")``. If a payload
    raises a fatal error (a ``BaseException`` such as ``KeyboardInterrupt``), its future and
    every queued one fail with it, later work fails at once, and the worker dies with it.

    Args:
        sandbox: Where submitted payloads run.
        buffer: The most queued ops (0: unbounded); ``submit`` blocks when it is full.
    """

    def __init__(self, sandbox: Dispatcher, *, buffer: int = 0) -> None:
        self.sandbox = sandbox
        self._queue: queue.Queue[_Op | None] = queue.Queue(maxsize=buffer)
        # Checking the state and queueing happen under _lock, so __exit__ cannot slip between.
        # The worker never takes it: a submit blocked on a full queue holds it.
        self._lock = threading.Lock()
        self._count_lock = threading.Lock()
        self._pending = 0
        self._thread: threading.Thread | None = None
        self._closed = False
        self._fatal: BaseException | None = None

    def __enter__(self) -> Self:
        with self._lock:
            if self._closed:
                raise RuntimeError("stream is already closed")
            if self._thread is not None:
                raise RuntimeError("stream is already started")
            self._thread = threading.Thread(
                target=self._work, name="rath-backend-stream", daemon=True
            )
            self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._fatal is None:
                self._queue.put(None)
            worker = self._thread
        if worker is not None:
            worker.join()

    def submit(self, call: BackendTool) -> Future[ToolResult | bool]:
        """Queue ``call``; its future resolves once it has run (after everything before it)."""
        op = _Call(call)
        self._enqueue(op)
        return op.future

    def record_event(self) -> Event:
        """An event reached once everything submitted so far has run."""
        op = _Record()
        self._enqueue(op)
        return op.event

    def wait_event(self, event: Event, *, timeout: float | None = None) -> Future[None]:
        """Make later work wait for ``event`` (a ``TimeoutError`` future after ``timeout``)."""
        op = _Wait(event, timeout)
        self._enqueue(op)
        return op.future

    def wait_stream(self, other: Stream) -> Future[None]:
        """Make later work wait for everything submitted to ``other`` so far."""
        return self.wait_event(other.record_event())

    def synchronize(self) -> None:
        """Block until everything submitted has run."""
        op = _Sync()
        self._enqueue(op)
        op.reached.wait()

    def query(self) -> bool:
        """Whether everything submitted has run."""
        with self._lock, self._count_lock:
            self._check_open()
            return self._pending == 0

    def _enqueue(self, op: _Op) -> None:
        with self._lock:
            self._check_open()
            if self._fatal is not None:
                op.fail(self._fatal)
                return
            self._count(op, 1)
            self._queue.put(op)

    def _count(self, op: _Op, change: int) -> None:
        if op.counted:
            with self._count_lock:
                self._pending += change

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("stream is closed")
        if self._thread is None:
            raise RuntimeError("stream is not started")

    def _work(self) -> None:
        while (op := self._queue.get()) is not None:
            try:
                op.run(self.sandbox)
            except BaseException as fatal:
                self._die(fatal)
                if not isinstance(fatal, Exception):
                    raise
                return
            finally:
                self._count(op, -1)

    def _die(self, fatal: BaseException) -> None:
        """Fail every queued op with ``fatal``; later ones fail as they are queued."""
        self._fatal = fatal
        self._fail_queued(fatal)  # frees room for a submit blocked on a full queue
        with self._lock:  # a submit that checked before _fatal was set has queued by now
            self._fail_queued(fatal)

    def _fail_queued(self, fatal: BaseException) -> None:
        while True:
            try:
                op = self._queue.get_nowait()
            except queue.Empty:
                return
            if op is not None:
                op.fail(fatal)
                self._count(op, -1)
