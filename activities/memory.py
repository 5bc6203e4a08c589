"""Memory activities: remember, recall, inject and commit against the store a spec names.

A retry never duplicates (idempotency keys, the commit's heartbeat cache): docs/memory.md.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import timedelta
from typing import Any

from pydantic import BaseModel, ValidationError
from temporalio import activity
from temporalio.exceptions import ApplicationError

from rath.activities._boundary import activity_errors
from rath.activities._heartbeat import heartbeating
from rath.activities.llm import LLMActivities
from rath.contracts.memory import (
    COMMIT_MEMORIES,
    INJECT_MEMORIES,
    RECALL_MEMORIES,
    REMEMBER_MEMORY,
    CommitArgs,
    CommitResult,
    InjectArgs,
    InjectResult,
    RecallArgs,
    RecallResult,
    RememberArgs,
    RememberResult,
)
from rath.errors import ConfigError, MemoryStoreError
from rath.llm.chat_response import RathLLMTokenUsage
from rath.memory import (
    EmbeddingError,
    ExtractedFact,
    MemoryHit,
    MemorySpec,
    MemoryStore,
    RecallMode,
    StoreFactory,
    commit_messages,
    injectable,
    injection_query,
    memory_row,
    open_memory_store,
    parse_extracted_facts,
    parse_memory_prefix,
    write_facts,
)
from rath.session.chunk import ChunkRow
from rath.session.table_ref import TableRef
from rath.store import ChunkStore
from rath.utils.text import preview

PREVIEW_CHARS = 160
_CACHE_KEY = "rath.memory.commit"


class _Extraction(BaseModel):
    """What a commit attempt records in its heartbeat details for the attempts after it."""

    facts: list[ExtractedFact]
    usage: RathLLMTokenUsage | None = None


class MemoryActivities:
    """Memory activities, bound at worker start to how stores open and where rows live.

    ``store_factory`` opens each distinct spec once; ``chunks`` holds transcripts and injected
    rows; ``llm`` makes the commit's model call.
    """

    def __init__(
        self,
        store_factory: StoreFactory | None = None,
        *,
        chunks: ChunkStore | None = None,
        llm: LLMActivities | None = None,
    ) -> None:
        self._factory: StoreFactory = store_factory or open_memory_store
        self._chunks = chunks
        self._llm = llm
        self._stores: dict[str, MemoryStore] = {}
        self._lock = threading.Lock()

    @REMEMBER_MEMORY.implement
    async def remember(self, args: RememberArgs) -> RememberResult:
        """Store one memory, idempotently (see the module docstring)."""
        info = activity.info()
        key = args.key or f"{info.workflow_id}/{info.workflow_run_id}/{info.activity_id}"
        with _memory_errors():
            store = await asyncio.to_thread(self._store, args.memory)
            async with heartbeating():
                record = await asyncio.to_thread(
                    store.remember,
                    args.content,
                    args.scope or args.memory.scope,
                    args.category or args.memory.category,
                    key=key,
                    session_id=args.session_id,
                )
        return RememberResult(record=record)

    @RECALL_MEMORIES.implement
    async def recall(self, args: RecallArgs) -> RecallResult:
        """Return the memories most relevant to a query."""
        with _memory_errors():
            hits = await self._recall(args.memory, args.query, args.top_k, args.target, args.mode)
        return RecallResult(hits=tuple(hits))

    @INJECT_MEMORIES.implement
    async def inject(self, args: InjectArgs) -> InjectResult:
        """Recall for the newest user turn; new positive hits as stored, marked SYSTEM rows."""
        with _memory_errors():
            rows = await asyncio.to_thread(self._rows, args.transcript)
            query = injection_query(rows)
            if query is None:
                return InjectResult(preview="no user message to recall for")
            hits = await self._recall(args.memory, query, args.top_k, args.target, args.mode)
            chosen = injectable(hits, rows)
            if not chosen:
                return InjectResult()
            now = time.time()
            digests = await asyncio.to_thread(
                self._put_rows, [memory_row(hit.as_record()).stamped(now) for hit in chosen]
            )
        summary = " | ".join(hit.content for hit in chosen)
        return InjectResult(
            rows=digests,
            uris=tuple(hit.uri for hit in chosen),
            preview=preview(f"{len(chosen)} memories: {summary}", PREVIEW_CHARS),
        )

    @COMMIT_MEMORIES.implement
    async def commit(self, args: CommitArgs) -> CommitResult:
        """Extract durable facts from the transcript with one model call and store them."""
        scope = args.scope or args.memory.scope
        with _memory_errors():
            store = await asyncio.to_thread(self._store, args.memory)
            extraction = _cached_extraction()
            if extraction is None:
                # No cached extraction yet, so plain beats erase nothing; building the prompt
                # recalls against the store, which may first embed every memory in it.
                async with heartbeating():
                    rows = await asyncio.to_thread(self._rows, args.transcript)
                    messages = await asyncio.to_thread(commit_messages, store, rows, scope=scope)
                if not messages:
                    return CommitResult()
                reply, usage = await self._chat(args, messages)
                facts = parse_extracted_facts(reply, scope=scope)
                extraction = _Extraction(facts=facts, usage=usage)
            async with _beating_with(extraction):
                return await asyncio.to_thread(
                    write_facts,
                    store,
                    extraction.facts,
                    session_id=args.session_id,
                    usage=extraction.usage,
                )

    def close(self) -> None:
        """Close every store opened so far (call when the worker stops)."""
        with self._lock:
            stores, self._stores = list(self._stores.values()), {}
        for store in stores:
            store.close()

    async def _recall(
        self, spec: MemorySpec, query: str, top_k: int, target: str | None, mode: RecallMode
    ) -> list[MemoryHit]:
        scope, category = parse_memory_prefix(target) if target is not None else (None, None)
        store = await asyncio.to_thread(self._store, spec)
        async with heartbeating():
            return await asyncio.to_thread(
                store.recall, query, top_k=top_k, scope=scope, category=category, mode=mode
            )

    async def _chat(
        self, args: CommitArgs, messages: list[dict[str, str]]
    ) -> tuple[str, RathLLMTokenUsage | None]:
        if self._llm is None:
            raise ConfigError(
                "this worker's MemoryActivities has no LLMActivities, so it cannot commit: "
                "build it with MemoryActivities(..., llm=LLMActivities(...))"
            )
        wanted = "a JSON list of facts"
        purpose = f"memory commit by {args.agent_name!r}"
        return await self._llm.chat_text(
            args.provider, list(messages), purpose=purpose, wanted=wanted
        )

    def _store(self, spec: MemorySpec) -> MemoryStore:
        name = spec.model_dump_json()
        with self._lock:
            store = self._stores.get(name)
            if store is None:
                store = self._factory(spec)
                self._stores[name] = store
            return store

    def _rows(self, ref: TableRef) -> tuple[ChunkRow, ...]:
        inline = ref.inline_rows()
        if inline is not None:
            return inline
        return self._chunk_store().load_rows(ref)

    def _put_rows(self, rows: list[ChunkRow]) -> tuple[str, ...]:
        store = self._chunk_store()
        return tuple(store.put_row(row) for row in rows)

    def _chunk_store(self) -> ChunkStore:
        if self._chunks is None:
            raise ConfigError(
                "this worker's MemoryActivities has no chunk store: build it with "
                "MemoryActivities(..., chunks=store)"
            )
        return self._chunks


def _cached_extraction() -> _Extraction | None:
    """The facts an earlier attempt of this commit extracted, if it recorded them."""
    details = activity.info().heartbeat_details
    if not details or not isinstance(details[0], dict):
        return None
    try:
        return _Extraction.model_validate(details[0].get(_CACHE_KEY))
    except ValidationError:
        return None


@asynccontextmanager
async def _beating_with(extraction: _Extraction) -> AsyncIterator[None]:
    """Heartbeat with the extraction as details: at once, then at a third of the timeout."""
    details: dict[str, Any] = {_CACHE_KEY: extraction.model_dump(mode="json")}
    activity.heartbeat(details)
    async with heartbeating(details):  # without details, a beat would erase the cache
        yield


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
