"""The client-side runtime behind the synchronous, lazy API. See docs/modules.md."""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import concurrent.futures.thread  # its exit hook must be registered before ours
import contextlib
import sys
import threading
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from temporalio.client import Client
from temporalio.worker import Worker

from rath.plugin import RathPlugin
from rath.runtime import interrupt
from rath.runtime.connect import connect
from rath.runtime.devserver import ensure_server
from rath.runtime.search_attributes import usable_search_attributes
from rath.runtime.workers import code_worker, rath_workers, registered_code_queues
from rath.settings import Settings
from rath.store import check_store

T = TypeVar("T")
_SHUTDOWN_TIMEOUT = 10.0
_SETTLE_SECONDS = 0.2
_INTERRUPTED_SHUTDOWN_TIMEOUT = 2.0
"""After Ctrl-C, calls in flight are not waited for long: their runs go on elsewhere."""
READ_CONNECT_SECONDS = 5.0
"""How long a command that only reads runs waits for Temporal before reading without it."""


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
        self._served: set[str] = set()
        self.local_queue = f"{settings.affinity_queue}/local/{uuid.uuid4().hex[:12]}"
        """This process's own task queue: the calls of runs' loop executors come here."""
        self.search_attributes = False
        """Whether runs carry Rath's search attributes (known once connected)."""
        self._reader: asyncio.Future[Client] | None = None
        self._serves = True
        self._started: set[tuple[str, concurrent.futures.Future[Any]]] = set()
        self.begun: set[str] = set()
        """Workflow ids of the runs this process started on the server."""

    def read_only(self) -> None:
        """Never run an in-process worker here: this process only reads runs and answers them."""
        self._serves = False

    def serves(self, queue: str) -> bool:
        """Whether this process's own worker polls ``queue`` (known once connected)."""
        return queue in self._served

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule ``coro`` on the runtime loop; never blocks."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    def call(
        self, work: Callable[[Client], Awaitable[T]], *, timeout: float, reader: bool = False
    ) -> T:
        """``work(client)`` run on the runtime loop, waited for up to ``timeout`` seconds.

        The client is :meth:`reader`'s when ``reader`` is true (no worker starts), else
        :meth:`client`'s.

        Raises:
            TimeoutError: No result within ``timeout`` seconds (the work goes on).
        """

        async def connected() -> T:
            return await work(await (self.reader() if reader else self.client()))

        return self.submit(connected()).result(timeout=timeout)

    def track(self, run_id: str, future: concurrent.futures.Future[Any]) -> None:
        """Note work of run ``run_id`` this script started: the exit waits for it."""
        entry = (run_id, future)
        self._started.add(entry)
        future.add_done_callback(lambda _: self._started.discard(entry))

    def finish_started_runs(self) -> None:
        """At exit: wait for the runs this script started and never read (as OpenRath drains)."""
        going = {run_id: future for run_id, future in list(self._started) if not future.done()}
        if not going:
            return
        count = len(going)
        notice(
            f"waiting for {count} run{'s' if count != 1 else ''} this script started "
            "(Ctrl-C leaves them running)"
        )
        with contextlib.suppress(KeyboardInterrupt):
            futures = [future for _, future in list(self._started)]
            concurrent.futures.wait(futures, timeout=self.settings.exit_wait_seconds)
        for run_id in sorted({run_id for run_id, future in self._started if not future.done()}):
            if run_id not in self.begun:
                notice(f"run {run_id} never started: its inputs were not ready")
                continue
            notice(
                f"run {run_id} still going: rath sessions follow {run_id} "
                "(needs a worker: rath worker)"
            )

    async def client(self) -> Client:
        """The connected client; the first call starts the embedded server and worker."""
        if self._client is None:
            self._client = asyncio.ensure_future(self._connect())
        return await asyncio.shield(self._client)

    async def reader(self) -> Client:
        """A connected client that starts no worker: for reading runs and the catalog.

        Raises:
            ConnectError: Temporal did not answer.
        """
        if self._client is not None and self._client.done() and not self._client.exception():
            return self._client.result()
        if self._reader is None:
            self._reader = asyncio.ensure_future(self._connect_reader())
        return await asyncio.shield(self._reader)

    async def _address(self, *, say: bool) -> str:
        """The server's address; the embedded one is started when it is not running."""
        if self.settings.address is not None:
            return self.settings.address
        info = await asyncio.to_thread(ensure_server, self.settings.home)
        if say or info.started:
            verb = "started" if info.started else "using"
            notice(f"{verb} embedded Temporal at {info.address} (Web UI: {info.ui_url})")
        return info.address

    async def _connect_reader(self) -> Client:
        address = await self._address(say=False)
        plugins = [RathPlugin(settings=self.settings)]
        return await connect(self.settings, address, plugins, timeout=READ_CONNECT_SECONDS)

    async def _connect(self) -> Client:
        settings = self.settings
        await asyncio.to_thread(check_store, settings)  # a missing bucket: one line, now
        address = await self._address(say=True)
        client = await connect(settings, address, [RathPlugin(settings=settings)])
        self.search_attributes = await usable_search_attributes(client, settings)
        if settings.embedded and self._serves:
            queues = registered_code_queues(settings)
            self._served.update((settings.task_queue, settings.affinity_queue, *queues))
            for worker in rath_workers(client, settings, code_queues=queues):
                self._run(worker)
        return client

    async def serve_registered_code(self) -> None:
        """Embedded: poll the queues of classes and tools registered since the worker started."""
        client = await self.client()
        if not self.settings.embedded or not self._serves:
            return
        for queue in registered_code_queues(self.settings):
            self._serve(client, queue)

    async def serve_local_queue(self) -> None:
        """Poll :attr:`local_queue` (once a run has a loop executor; embedded or not)."""
        self._serve(await self.client(), self.local_queue)

    def _serve(self, client: Client, queue: str) -> None:
        """Poll ``queue`` with a code worker of this process, unless one already does."""
        if queue not in self._served:
            self._served.add(queue)
            self._run(code_worker(client, self.settings, queue))

    def _run(self, worker: Worker) -> None:
        self._workers.append(worker)
        self._worker_tasks.append(asyncio.ensure_future(worker.run()))

    def shutdown(self, timeout: float = _SHUTDOWN_TIMEOUT) -> None:
        """Stop the in-process worker (within ``timeout`` seconds) and the loop thread."""
        if self._workers:
            workers = self._workers

            async def stop() -> None:
                await asyncio.gather(*(worker.shutdown() for worker in workers))
                # run() returns after its plugins' run_context has exited (open sandboxes and
                # pooled connections closed): wait for that too, not just for the pollers.
                await asyncio.wait(self._worker_tasks)

            # At interpreter exit a failed shutdown must not turn a clean run into a failure.
            with contextlib.suppress(Exception):
                self.submit(stop()).result(timeout=timeout)
        with contextlib.suppress(Exception):
            self.submit(_settle(timeout)).result(timeout=timeout + _SETTLE_SECONDS)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=timeout)


async def _settle(timeout: float) -> None:
    """Cancel what still waits on Temporal, and let the core deliver its last answers."""
    current = asyncio.current_task()
    pending = [task for task in asyncio.all_tasks() if task is not current]
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.wait(pending, timeout=timeout)
    await asyncio.sleep(_SETTLE_SECONDS)  # the core's threads hand over while the loop runs


_runtimes: dict[Settings, Runtime] = {}
_lock = threading.Lock()


def get_runtime(settings: Settings | None = None) -> Runtime:
    """The runtime for ``settings`` (from the environment by default), created on first use."""
    settings = settings or Settings.from_env()
    with _lock:
        runtime = _runtimes.get(settings)
        if runtime is None:
            runtime = _runtimes[settings] = Runtime(settings)
    interrupt.install(_interrupted_shutdown, lambda: settings.embedded)
    return runtime


def _interrupted_shutdown() -> None:
    shutdown_runtime(timeout=_INTERRUPTED_SHUTDOWN_TIMEOUT)


def shutdown_runtime(
    settings: Settings | None = None, *, timeout: float = _SHUTDOWN_TIMEOUT
) -> None:
    """Shut down the runtime for ``settings`` (all runtimes when ``None``); a no-op if absent."""
    with _lock:
        if settings is None:
            runtimes = list(_runtimes.values())
            _runtimes.clear()
        else:
            found = _runtimes.pop(settings, None)
            runtimes = [found] if found is not None else []
    for runtime in runtimes:
        runtime.shutdown(timeout)


def _shutdown_at_exit() -> None:
    """Finish the runs this script started (see :meth:`Runtime.finish_started_runs`), then stop."""
    with _lock:
        runtimes = list(_runtimes.values())
    for runtime in runtimes:
        runtime.finish_started_runs()
    shutdown_runtime()


# Shut down before the interpreter starts finalising: ``atexit`` handlers run after
# concurrent.futures refuses new work, which leaves the worker unable to evict workflows (and
# has been seen to abort the process). Threading's exit hooks run first, newest first, so this
# one (registered after concurrent.futures.thread's) runs while executors still work.
_register_early_exit = getattr(threading, "_register_atexit", None)
if _register_early_exit is not None:
    _register_early_exit(_shutdown_at_exit)
else:  # pragma: no cover - CPython always has it
    atexit.register(_shutdown_at_exit)


def notice(message: str) -> None:
    """One line for the user on stderr, prefixed ``rath:``."""
    sys.stderr.write(f"rath: {message}\n")
    sys.stderr.flush()
