"""Memory activities: remember and recall against a memory store on the worker.

Workflows name a store by a short name (``default`` unless told otherwise); the worker maps
names to stores with the factory it was given (:func:`rath.memory.local_store_factory` opens
``<RATH_HOME>/memory/<name>.db``) and keeps each store open for its lifetime.

``remember`` is safe to retry: it passes the store an idempotency key, the caller's or else
``<workflow id>/<run id>/<activity id>``, which stays the same across the attempts of one
activity, so an attempt that wrote the memory and then failed (or whose completion was lost)
is followed by one that finds that memory instead of writing a second.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from pydantic import BaseModel, ConfigDict
from temporalio import activity
from temporalio.exceptions import ApplicationError

from rath.activities._boundary import activity_errors
from rath.activities._heartbeat import heartbeating
from rath.errors import MemoryStoreError
from rath.memory import (
    DEFAULT_STORE_NAME,
    EmbeddingError,
    MemoryHit,
    MemoryRecord,
    MemoryStore,
    RecallMode,
    StoreFactory,
)


class RememberArgs(BaseModel):
    """Input of :meth:`MemoryActivities.remember`."""

    model_config = ConfigDict(frozen=True)

    content: str
    scope: str = "user"
    category: str = "preferences"
    key: str | None = None
    """An idempotency key; by default the activity's own (stable across its retries)."""
    session_id: str | None = None
    store: str = DEFAULT_STORE_NAME


class RememberResult(BaseModel):
    """Output of :meth:`MemoryActivities.remember`: the stored (or already present) record."""

    model_config = ConfigDict(frozen=True)

    record: MemoryRecord


class RecallArgs(BaseModel):
    """Input of :meth:`MemoryActivities.recall`."""

    model_config = ConfigDict(frozen=True)

    query: str
    top_k: int = 4
    scope: str | None = None
    mode: RecallMode = "hybrid"
    store: str = DEFAULT_STORE_NAME


class RecallResult(BaseModel):
    """Output of :meth:`MemoryActivities.recall`: hits, best first, every score positive."""

    model_config = ConfigDict(frozen=True)

    hits: tuple[MemoryHit, ...]


class MemoryActivities:
    """Memory activities, bound at worker start to a factory that opens stores by name.

    Args:
        store_factory: Opens the store a name refers to; called once per name, on first use.
    """

    def __init__(self, store_factory: StoreFactory) -> None:
        self._factory = store_factory
        self._stores: dict[str, MemoryStore] = {}
        self._lock = threading.Lock()

    @activity.defn(name="rath.memory.remember")
    async def remember(self, args: RememberArgs) -> RememberResult:
        """Store one memory, idempotently (see the module docstring)."""
        info = activity.info()
        key = args.key or f"{info.workflow_id}/{info.workflow_run_id}/{info.activity_id}"
        with _memory_errors():
            store = await asyncio.to_thread(self._store, args.store)
            async with heartbeating():
                record = await asyncio.to_thread(
                    store.remember,
                    args.content,
                    args.scope,
                    args.category,
                    key=key,
                    session_id=args.session_id,
                )
        return RememberResult(record=record)

    @activity.defn(name="rath.memory.recall")
    async def recall(self, args: RecallArgs) -> RecallResult:
        """Return the memories most relevant to a query."""
        with _memory_errors():
            store = await asyncio.to_thread(self._store, args.store)
            async with heartbeating():
                hits = await asyncio.to_thread(
                    store.recall, args.query, top_k=args.top_k, scope=args.scope, mode=args.mode
                )
        return RecallResult(hits=tuple(hits))

    def close(self) -> None:
        """Close every store opened so far (call when the worker stops)."""
        with self._lock:
            stores, self._stores = list(self._stores.values()), {}
        for store in stores:
            store.close()

    def _store(self, name: str) -> MemoryStore:
        with self._lock:
            store = self._stores.get(name)
            if store is None:
                store = self._factory(name)
                self._stores[name] = store
            return store


@contextmanager
def _memory_errors() -> Iterator[None]:
    """Turn store failures into Temporal failures: retryable unless the error says not."""
    with activity_errors():
        try:
            yield
        except EmbeddingError as exc:
            delay = timedelta(seconds=exc.retry_after) if exc.retry_after is not None else None
            raise ApplicationError(
                str(exc),
                type=type(exc).__name__,
                non_retryable=not exc.retryable,
                next_retry_delay=delay,
            ) from None
        except MemoryStoreError as exc:
            raise ApplicationError(
                str(exc), type=type(exc).__name__, non_retryable=not exc.retryable
            ) from None
