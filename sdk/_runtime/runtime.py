"""The client-side runtime behind the synchronous, lazy API.

One background thread runs one asyncio loop holding the Temporal client and, in the embedded
default, an in-process worker. ``agent(session)`` submits a coroutine here and returns at once;
reading the result waits on its future. This is process-global state (one runtime per settings),
torn down at interpreter exit.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import concurrent.futures.thread  # its exit hook must be registered before ours
import contextlib
import sys
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar, cast

from temporalio.client import Client, WorkflowFailureError
from temporalio.common import TypedSearchAttributes
from temporalio.worker import Worker

from rath._runtime.devserver import ensure_server
from rath._runtime.failures import describe_failure
from rath._runtime.workers import rath_workers
from rath.errors import BudgetExceededError, RunFailedError
from rath.plugin import RathPlugin
from rath.settings import Settings
from rath.workflows._budget_steps import exceeded_session

T = TypeVar("T")
BudgetCallback = Callable[[Any, Any], None]
"""OpenRath's ``on_budget_exceeded(session, usage)``."""
_SHUTDOWN_TIMEOUT = 10.0


class Runtime:
    """A background event loop with a connected client (and the embedded worker)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="rath-runtime", daemon=True
        )
        self._thread.start()
        self._client: asyncio.Future[Client] | None = None
        self._workers: list[Worker] = []
        self._worker_tasks: list[asyncio.Future[None]] = []

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule ``coro`` on the runtime loop; never blocks."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    async def client(self) -> Client:
        """The connected client; the first call starts the embedded server and worker."""
        if self._client is None:
            self._client = asyncio.ensure_future(self._connect())
        return await asyncio.shield(self._client)

    async def _connect(self) -> Client:
        settings = self.settings
        address = settings.address
        if address is None:
            info = await asyncio.to_thread(ensure_server, settings.home)
            address = info.address
            verb = "started" if info.started else "using"
            _notice(f"{verb} embedded Temporal at {address} (Web UI: {info.ui_url})")
        client = await Client.connect(
            address, namespace=settings.namespace, plugins=[RathPlugin(settings=settings)]
        )
        if settings.embedded:
            self._workers = rath_workers(client, settings)
            self._worker_tasks = [asyncio.ensure_future(w.run()) for w in self._workers]
        return client

    def shutdown(self) -> None:
        """Stop the in-process worker (bounded) and the loop thread."""
        if self._workers:
            workers = self._workers

            async def stop() -> None:
                await asyncio.gather(*(worker.shutdown() for worker in workers))
                # run() returns after its plugins' run_context has exited (open sandboxes and
                # pooled connections closed): wait for that too, not just for the pollers.
                await asyncio.wait(self._worker_tasks)

            # At interpreter exit a failed shutdown must not turn a clean run into a failure.
            with contextlib.suppress(Exception):
                self.submit(stop()).result(timeout=_SHUTDOWN_TIMEOUT)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=_SHUTDOWN_TIMEOUT)


_runtimes: dict[Settings, Runtime] = {}
_lock = threading.Lock()


def get_runtime(settings: Settings | None = None) -> Runtime:
    """The runtime for ``settings`` (from the environment by default), created on first use."""
    settings = settings or Settings.from_env()
    with _lock:
        runtime = _runtimes.get(settings)
        if runtime is None:
            runtime = _runtimes[settings] = Runtime(settings)
        return runtime


def shutdown_runtime(settings: Settings | None = None) -> None:
    """Shut down the runtime for ``settings`` (all runtimes when ``None``); a no-op if absent."""
    with _lock:
        if settings is None:
            runtimes = list(_runtimes.values())
            _runtimes.clear()
        else:
            found = _runtimes.pop(settings, None)
            runtimes = [found] if found is not None else []
    for runtime in runtimes:
        runtime.shutdown()


# Shut down before the interpreter starts finalising: ``atexit`` handlers run after
# concurrent.futures refuses new work, which leaves the worker unable to evict workflows (and
# has been seen to abort the process). Threading's exit hooks run first, newest first, so this
# one (registered after concurrent.futures.thread's) runs while executors still work.
_register_early_exit = getattr(threading, "_register_atexit", None)
if _register_early_exit is not None:
    _register_early_exit(shutdown_runtime)
else:  # pragma: no cover - CPython always has it
    atexit.register(shutdown_runtime)


class RunHandle:
    """The pending result of one durable run (implements the session's ``PendingResult``)."""

    def __init__(self, run_id: str, future: concurrent.futures.Future[Any]) -> None:
        self._run_id = run_id
        self._future = future

    @property
    def run_id(self) -> str:
        """The workflow id."""
        return self._run_id

    def done(self) -> bool:
        """True once the run has finished."""
        return self._future.done()

    def result(self) -> Any:
        """Wait for the run; failures become :class:`RunFailedError` naming the workflow id."""
        return self._future.result()

    async def wait(self) -> None:
        """Await the run from asyncio code without blocking the loop.

        Cancelling the caller (``asyncio.wait_for(out.ready(), 5)`` timing out) stops this
        wait only; the run and its other waiters go on.
        """
        await asyncio.shield(asyncio.wrap_future(self._future))


async def run_workflow(
    runtime: Runtime,
    *,
    workflow: str,
    workflow_id: str,
    make_input: Callable[[], Any],
    result_type: type[T],
    wait_for: tuple[Callable[[], Awaitable[None]], ...] = (),
    static_summary: str | None = None,
    search_attributes: TypedSearchAttributes | None = None,
    on_budget_exceeded: BudgetCallback | None = None,
    on_started: Callable[[], None] | None = None,
) -> T:
    """Start a workflow once its inputs are ready, and wait for its result.

    ``on_started`` is called once the server accepted the start (the run exists).

    A run that ended over budget raises :class:`BudgetExceededError` with the transcript so
    far, unless ``on_budget_exceeded`` is given: it is called with that session and its
    usage (OpenRath's callback), and the session becomes the result unless it raises.
    """
    for ready in wait_for:
        await ready()
    client = await runtime.client()
    handle = await client.start_workflow(
        workflow,
        make_input(),
        id=workflow_id,
        task_queue=runtime.settings.task_queue,
        result_type=result_type,
        static_summary=static_summary,
        search_attributes=search_attributes,
    )
    if on_started is not None:
        on_started()
    try:
        result: T = await handle.result()
        return result
    except WorkflowFailureError as exc:
        over = exceeded_session(exc)
        if over is None:
            raise RunFailedError(
                f"run {workflow_id!r} failed: {describe_failure(exc)}", workflow_id=workflow_id
            ) from exc
        message, partial = over
        if on_budget_exceeded is not None:
            on_budget_exceeded(partial, partial.usage)
            return cast(T, partial)
        reason = str(dict(partial.lineage_extras).get("budget.exceeded", ""))
        raise BudgetExceededError(
            f"run {workflow_id!r}: {message}",
            workflow_id=workflow_id,
            session=partial,
            reason=reason,
        ) from None


def _notice(message: str) -> None:
    sys.stderr.write(f"rath: {message}\n")
    sys.stderr.flush()


def start_lazy_run(
    out: Any,
    *,
    workflow: str,
    run_id: str,
    agent: str,
    inputs: tuple[Any, ...],
    make_input: Callable[[], Any],
    static_summary: str,
    settings: Settings,
    on_budget_exceeded: BudgetCallback | None = None,
    on_started: Callable[[], None] | None = None,
) -> None:
    """Start ``workflow`` once ``inputs`` are ready and make ``out`` its lazy result.

    Shared by every client-side entry point (agent loop, durable forward, compression):
    the run is tagged with search attributes (when enabled) and ``out`` is recorded in the
    client's lineage journal.
    """
    from rath._runtime.sandboxes import hold
    from rath._runtime.scope import search_attributes
    from rath.session._session import Session
    from rath.session.graph import record_session

    runtime = get_runtime(settings)
    waits = tuple(s.ready for s in inputs if s.pending)
    future = runtime.submit(
        run_workflow(
            runtime,
            workflow=workflow,
            workflow_id=run_id,
            make_input=make_input,
            result_type=Session,
            wait_for=waits,
            static_summary=static_summary,
            search_attributes=(
                search_attributes(out.id, out.id, agent) if settings.search_attributes else None
            ),
            on_budget_exceeded=on_budget_exceeded,
            on_started=on_started,
        )
    )
    out.attach_pending(RunHandle(run_id, future))
    record_session(out, agent=agent, inputs=inputs)
    hold(out)
