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
import uuid
from collections.abc import Coroutine
from typing import Any, TypeVar

from temporalio.client import Client
from temporalio.worker import Worker

from rath._runtime.connect import connect
from rath._runtime.devserver import ensure_server
from rath._runtime.search_attributes import usable_search_attributes
from rath._runtime.workers import code_worker, rath_workers, registered_code_queues
from rath.plugin import RathPlugin
from rath.settings import Settings
from rath.store import check_store

T = TypeVar("T")
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
        self._served: set[str] = set()
        self.local_queue = f"{settings.affinity_queue}/local/{uuid.uuid4().hex[:12]}"
        """This process's own task queue: the calls of runs' loop executors come here."""
        self.search_attributes = False
        """Whether runs carry Rath's search attributes (known once connected)."""

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
        await asyncio.to_thread(check_store, settings)  # a missing bucket: one line, now
        address = settings.address
        if address is None:
            info = await asyncio.to_thread(ensure_server, settings.home)
            address = info.address
            verb = "started" if info.started else "using"
            notice(f"{verb} embedded Temporal at {address} (Web UI: {info.ui_url})")
        client = await connect(settings, address, [RathPlugin(settings=settings)])
        self.search_attributes = await usable_search_attributes(client, settings)
        if settings.embedded:
            queues = registered_code_queues(settings)
            self._workers = rath_workers(client, settings, code_queues=queues)
            self._served.update(queues)
            self._worker_tasks = [asyncio.ensure_future(w.run()) for w in self._workers]
        return client

    async def serve_registered_code(self) -> None:
        """Embedded: poll the queues of classes and tools registered since the worker started.

        Called before each run starts, so the in-process worker takes the run's forward and
        tool calls; it never polls the queue of code this process does not have.
        """
        client = await self.client()
        if not self.settings.embedded:
            return
        for queue in registered_code_queues(self.settings):
            if queue not in self._served:
                self._served.add(queue)
                worker = code_worker(client, self.settings, queue)
                self._workers.append(worker)
                self._worker_tasks.append(asyncio.ensure_future(worker.run()))

    async def serve_local_queue(self) -> None:
        """Poll :attr:`local_queue` (once a run has a loop executor; embedded or not)."""
        client = await self.client()
        if self.local_queue not in self._served:
            self._served.add(self.local_queue)
            worker = code_worker(client, self.settings, self.local_queue)
            self._workers.append(worker)
            self._worker_tasks.append(asyncio.ensure_future(worker.run()))

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


def notice(message: str) -> None:
    """One line for the user on stderr, prefixed ``rath:``."""
    sys.stderr.write(f"rath: {message}\n")
    sys.stderr.flush()
