"""rath.backend.Stream keeps OpenRath's semantics: exits, fatal worker errors, waits, query."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from rath.backend import (
    Backend,
    BackendSandbox,
    BackendSandboxSpec,
    BackendTool,
    BackendToolCommandRun,
    Capabilities,
    CommandResult,
    Event,
    Future,
    IsolationLevel,
    Stream,
    ToolResult,
)

OK = CommandResult(0, b"", b"", 0.0)


class _Fake(Backend):
    """Answers every payload after ``delay`` seconds; ``fatal`` makes dispatch raise it."""

    def __init__(self, delay: float = 0.0, fatal: BaseException | None = None) -> None:
        self.delay = delay
        self.fatal = fatal

    @classmethod
    def capabilities(cls) -> Capabilities:
        return Capabilities(IsolationLevel.PROCESS, True, False, False)

    def dispatch(self, sandbox: BackendSandbox, call: BackendTool) -> ToolResult | bool:
        if self.fatal is not None:
            time.sleep(0.05)  # let the test queue more work behind this call
            raise self.fatal
        return super().dispatch(sandbox, call)

    async def _aopen(self, spec: BackendSandboxSpec | None = None) -> BackendSandbox:
        return BackendSandbox(backend=self, handle="fake", spec=spec)

    async def _aclose(self, sandbox: BackendSandbox) -> None:
        sandbox.closed = True

    async def _adispatch(self, sandbox: BackendSandbox, call: BackendTool) -> ToolResult | bool:
        await asyncio.sleep(self.delay)
        return OK


def test_a_second_exit_is_a_no_op() -> None:
    stream = _Fake().open().stream()
    with stream:
        stream.submit(BackendToolCommandRun("x")).result()
    stream.__exit__(None, None, None)
    with pytest.raises(RuntimeError, match="stream is closed"):
        stream.submit(BackendToolCommandRun("x"))


def test_a_closed_stream_cannot_be_entered_again() -> None:
    stream = _Fake().open().stream()
    with stream:
        pass
    with pytest.raises(RuntimeError, match="already closed"):
        stream.__enter__()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_fatal_worker_error_fails_every_queued_future() -> None:
    fatal = KeyboardInterrupt("simulated Ctrl-C in dispatch")
    with _Fake(fatal=fatal).open().stream() as stream:
        futures = [stream.submit(BackendToolCommandRun(f"c{i}")) for i in range(5)]
        waited = stream.wait_event(Event())
        for future in futures:
            with pytest.raises(KeyboardInterrupt):
                future.result()
        with pytest.raises(KeyboardInterrupt):
            waited.result()
        later = stream.submit(BackendToolCommandRun("after"))
        with pytest.raises(KeyboardInterrupt):
            later.result()
        stream.synchronize()  # returns instead of waiting on a dead worker


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_events_recorded_on_a_stream_that_died_do_not_hang_their_waiters() -> None:
    with _Fake(fatal=KeyboardInterrupt("simulated")).open().stream() as stream:
        stream.submit(BackendToolCommandRun("dies"))
        queued = stream.record_event()  # queued behind the fatal call
        assert queued.wait(timeout=10)
        assert stream.record_event().wait(timeout=10)  # recorded after it died


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_fatal_error_on_a_full_buffered_stream_does_not_hang() -> None:
    futures: list[Future[ToolResult | bool]] = []

    def use() -> None:
        with _Fake(fatal=SystemExit(3)).open().stream(buffer=1) as stream:
            futures.extend(stream.submit(BackendToolCommandRun(f"c{i}")) for i in range(4))

    thread = threading.Thread(target=use)
    thread.start()
    thread.join(timeout=10)
    assert not thread.is_alive() and len(futures) == 4
    for future in futures:
        with pytest.raises(SystemExit):
            future.result()


def test_a_wait_event_timeout_says_so() -> None:
    with _Fake().open().stream() as stream:
        timed_out = stream.wait_event(Event(), timeout=0.05)
        with pytest.raises(TimeoutError, match="wait_event timed out"):
            timed_out.result()


def test_query_is_true_once_synchronize_returns() -> None:
    with _Fake(delay=0.02).open().stream() as stream:
        for i in range(5):
            stream.submit(BackendToolCommandRun(f"c{i}"))
        assert stream.query() is False
        stream.synchronize()
        assert stream.query() is True


def test_exit_runs_what_is_queued() -> None:
    with _Fake(delay=0.01).open().stream() as stream:
        futures = [stream.submit(BackendToolCommandRun(f"c{i}")) for i in range(5)]
    assert all(f.done() and f.result() == OK for f in futures)


def test_streams_on_one_sandbox_run_in_parallel() -> None:
    sandbox = _Fake(delay=0.2).open()
    started = time.monotonic()
    with Stream(sandbox) as first, Stream(sandbox) as second:
        pending = [s.submit(BackendToolCommandRun("x")) for s in (first, second)]
        assert [f.result() for f in pending] == [OK, OK]
    assert time.monotonic() - started < 0.38
