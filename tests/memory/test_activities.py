"""The memory activities, run by a real worker on the dev server: retries never duplicate."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from pydantic import BaseModel
from temporalio import workflow
from temporalio.client import Client, WorkflowFailureError
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.worker import Worker

from rath.activities.memory import MemoryActivities
from rath.contracts.memory import RecallArgs, RecallResult, RememberArgs, RememberResult
from rath.memory import LocalMemoryStore, MemoryHit, MemoryRecord, MemoryStore, RecallMode

TIMEOUT = 60.0
FAST_RETRY = RetryPolicy(initial_interval=timedelta(milliseconds=50), maximum_attempts=3)


class FlakyStore(MemoryStore):
    """A store whose first ``remember`` writes and then fails, as if the worker died after it."""

    def __init__(self, inner: MemoryStore) -> None:
        self.inner = inner
        self.remember_calls = 0
        self.recall_calls = 0
        self.keys: list[str | None] = []
        self._lock = threading.Lock()

    def remember(
        self,
        content: str,
        scope: str = "user",
        category: str = "preferences",
        *,
        key: str | None = None,
        session_id: str | None = None,
    ) -> MemoryRecord:
        record = self.inner.remember(content, scope, category, key=key, session_id=session_id)
        with self._lock:
            self.remember_calls += 1
            self.keys.append(key)
            first = self.remember_calls == 1
        if first:
            raise RuntimeError("worker lost right after the write")
        return record

    def recall(
        self,
        query: str,
        *,
        top_k: int = 4,
        scope: str | None = None,
        mode: RecallMode = "hybrid",
        category: str | None = None,
    ) -> list[MemoryHit]:
        with self._lock:
            self.recall_calls += 1
        return self.inner.recall(query, top_k=top_k, scope=scope, mode=mode, category=category)

    def get(self, uri: str) -> MemoryRecord | None:
        return self.inner.get(uri)

    def forget(self, uri: str) -> bool:
        return self.inner.forget(uri)

    def list(self, *, scope: str | None = None, category: str | None = None) -> list[MemoryRecord]:
        return self.inner.list(scope=scope, category=category)

    def close(self) -> None:
        self.inner.close()


class RoundTrip(BaseModel):
    remembered: list[RememberResult]
    recalled: RecallResult


@workflow.defn(name="test.MemoryRoundTrip", sandboxed=False)
class MemoryRoundTrip:
    """Remember each item, then recall a query: the activities as a workflow would use them."""

    @workflow.run
    async def run(self, items: list[RememberArgs], query: RecallArgs) -> RoundTrip:
        remembered = [
            await workflow.execute_activity_method(
                MemoryActivities.remember,
                item,
                start_to_close_timeout=timedelta(seconds=30),
                retry_policy=FAST_RETRY,
            )
            for item in items
        ]
        recalled = await workflow.execute_activity_method(
            MemoryActivities.recall,
            query,
            start_to_close_timeout=timedelta(seconds=30),
            retry_policy=FAST_RETRY,
        )
        return RoundTrip(remembered=remembered, recalled=recalled)


@pytest.fixture
def flaky(tmp_path: Path) -> Iterator[FlakyStore]:
    store = FlakyStore(LocalMemoryStore(tmp_path / "memory.db"))
    yield store
    store.close()


async def run_round_trip(
    client: Client, store: MemoryStore, items: list[RememberArgs], query: RecallArgs
) -> RoundTrip:
    activities = MemoryActivities(lambda spec: store)
    queue = f"memory-{uuid.uuid4().hex[:8]}"
    async with Worker(
        client,
        task_queue=queue,
        workflows=[MemoryRoundTrip],
        activities=[activities.remember, activities.recall],
    ):
        return await asyncio.wait_for(
            client.execute_workflow(
                MemoryRoundTrip.run,
                args=[items, query],
                id=f"memory-test-{uuid.uuid4().hex[:8]}",
                task_queue=queue,
            ),
            TIMEOUT,
        )


async def test_a_retried_remember_does_not_duplicate(
    bare_client: Client, flaky: FlakyStore
) -> None:
    items = [
        RememberArgs(content="The user's cat is called Miso.", category="profile"),
        RememberArgs(content="The user drinks green tea.", session_id="session-1"),
    ]
    result = await run_round_trip(bare_client, flaky, items, RecallArgs(query="cat name", top_k=3))
    assert flaky.remember_calls == 3  # the first item's failed attempt, its retry, the second
    # Both attempts of the first activity passed the same key: <workflow>/<run>/<activity id>.
    first_try, retry, second = flaky.keys
    assert first_try == retry != second
    assert first_try is not None and first_try.startswith("memory-test-")
    assert first_try.endswith("/1") and second is not None and second.endswith("/2")
    records = flaky.list()
    assert [r.content for r in records] == [item.content for item in items]
    assert [r.record for r in result.remembered] == records
    assert records[1].session_id == "session-1"
    assert [hit.uri for hit in result.recalled.hits] == [records[0].uri]
    assert result.recalled.hits[0].score > 0


async def test_the_callers_key_wins_over_the_activitys(
    bare_client: Client, flaky: FlakyStore
) -> None:
    items = [
        RememberArgs(content="The user likes tea.", key="commit-7/fact-0"),
        RememberArgs(content="The user likes coffee.", key="commit-7/fact-0"),
    ]
    result = await run_round_trip(bare_client, flaky, items, RecallArgs(query="coffee", top_k=3))
    assert [r.content for r in flaky.list()] == ["The user likes tea."]
    assert result.remembered[0] == result.remembered[1]
    assert result.recalled.hits == ()


async def test_a_bad_request_fails_at_once(bare_client: Client, flaky: FlakyStore) -> None:
    with pytest.raises(WorkflowFailureError) as caught:
        await run_round_trip(bare_client, flaky, [], RecallArgs(query="tea", top_k=0))
    cause = caught.value.cause
    assert isinstance(cause, ActivityError)
    assert isinstance(cause.cause, ApplicationError)
    assert cause.cause.type == "InvalidMemoryError" and cause.cause.non_retryable
    assert "top_k" in cause.cause.message
    assert flaky.recall_calls == 1
