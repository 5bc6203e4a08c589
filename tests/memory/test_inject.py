"""Memory injection through a real worker: relevant, marked, never zero-score, never twice."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pydantic import BaseModel
from temporalio import workflow
from temporalio.client import Client
from temporalio.common import RetryPolicy
from temporalio.worker import Worker

from rath.activities.memory import MemoryActivities
from rath.contracts.memory import InjectArgs, InjectResult
from rath.memory import (
    EmbeddingSpec,
    LocalMemoryStore,
    MemoryHit,
    MemoryRecord,
    MemorySpec,
    MemoryStore,
    RecallMode,
    is_memory_row,
)
from rath.session import ChunkKind, TableRef, assistant_turn_chunk, user_text_chunk
from rath.session.chunk import system_text_chunk
from rath.store import ChunkStore
from rath.testing.fake_embedder import FakeEmbeddingServer

TIMEOUT = 60.0
FAST_RETRY = RetryPolicy(initial_interval=timedelta(milliseconds=50), maximum_attempts=3)


class AgentTurn(BaseModel):
    memory: MemorySpec
    transcript: TableRef
    reply: str
    target: str | None = None


class TurnResult(BaseModel):
    transcript: TableRef
    injected: InjectResult


@workflow.defn(name="test.MemoryAgentTurn", sandboxed=False)
class AgentTurnWorkflow:
    """What an agent run does with memory: inject, then the model's reply (scripted here)."""

    @workflow.run
    async def run(self, turn: AgentTurn) -> TurnResult:
        injected = await workflow.execute_activity_method(
            MemoryActivities.inject,
            InjectArgs(memory=turn.memory, transcript=turn.transcript, target=turn.target),
            start_to_close_timeout=timedelta(seconds=30),
            retry_policy=FAST_RETRY,
        )
        reply = assistant_turn_chunk(content=turn.reply)
        return TurnResult(
            transcript=turn.transcript.append(*injected.rows, reply), injected=injected
        )


RunTurn = Callable[[AgentTurn], Awaitable[TurnResult]]


@asynccontextmanager
async def agent_worker(client: Client, activities: MemoryActivities) -> AsyncIterator[RunTurn]:
    queue = f"memory-inject-{uuid.uuid4().hex[:8]}"

    async def run(turn: AgentTurn) -> TurnResult:
        return await asyncio.wait_for(
            client.execute_workflow(
                AgentTurnWorkflow.run,
                turn,
                id=f"memory-inject-{uuid.uuid4().hex[:8]}",
                task_queue=queue,
            ),
            TIMEOUT,
        )

    async with Worker(
        client, task_queue=queue, workflows=[AgentTurnWorkflow], activities=[activities.inject]
    ):
        yield run


@pytest.fixture
def chunks(tmp_path: Path) -> ChunkStore:
    return ChunkStore(tmp_path / "chunks")


@pytest.fixture
def spec(tmp_path: Path) -> MemorySpec:
    return MemorySpec(path=str(tmp_path / "memory.db"))


def remember(spec: MemorySpec, *contents: str, scope: str = "user") -> list[MemoryRecord]:
    assert spec.path is not None
    with LocalMemoryStore(spec.path) as store:
        return [store.remember(content, scope) for content in contents]


def user_turn(*texts: str) -> TableRef:
    return TableRef.inline(*(user_text_chunk(text) for text in texts))


async def test_relevant_memories_are_injected_as_marked_system_rows(
    bare_client: Client, chunks: ChunkStore, spec: MemorySpec
) -> None:
    cat, _ = remember(spec, "The user's cat is called Miso.", "The user drinks green tea.")
    activities = MemoryActivities(chunks=chunks)
    async with agent_worker(bare_client, activities) as run:
        out = await run(
            AgentTurn(
                memory=spec, transcript=user_turn("Remind me: what's my cat called?"), reply="Miso."
            )
        )
    activities.close()
    assert out.injected.uris == (cat.uri,)
    assert "Miso" in out.injected.preview
    (row,) = [chunks.get_row(digest) for digest in out.injected.rows]
    assert row.kind is ChunkKind.SYSTEM and is_memory_row(row)
    assert row.payload["content"] == f"[memory] {cat.uri}\nThe user's cat is called Miso."
    assert row.at is not None and abs(row.at - datetime.now(UTC).timestamp()) < TIMEOUT
    kinds = [r.kind for r in chunks.load_rows(out.transcript)]
    assert kinds == [ChunkKind.USER, ChunkKind.SYSTEM, ChunkKind.ASSISTANT]


async def test_a_chained_agent_does_not_inject_the_same_memory_again(
    bare_client: Client, chunks: ChunkStore, spec: MemorySpec
) -> None:
    (cat,) = remember(spec, "The user's cat is called Miso.")
    activities = MemoryActivities(chunks=chunks)
    async with agent_worker(bare_client, activities) as run:
        first = await run(
            AgentTurn(memory=spec, transcript=user_turn("What's my cat called?"), reply="Miso.")
        )
        # A second agent over the first one's output recalls the same memory for the same
        # user turn, and adds nothing.
        second = await run(AgentTurn(memory=spec, transcript=first.transcript, reply="Indeed."))
        # A new turn recalls the cat memory again and a new one: only the new one is added.
        (food,) = remember(spec, "The user's cat eats salmon every evening.")
        third = await run(
            AgentTurn(
                memory=spec,
                transcript=second.transcript.append(user_text_chunk("What does my cat eat?")),
                reply="Salmon.",
            )
        )
    activities.close()
    assert first.injected.uris == (cat.uri,)
    assert second.injected.rows == () and second.injected.uris == ()
    assert third.injected.uris == (food.uri,)
    memory_rows = [r for r in chunks.load_rows(third.transcript) if is_memory_row(r)]
    assert len(memory_rows) == 2


async def test_the_query_is_the_newest_user_turn(
    bare_client: Client, chunks: ChunkStore, spec: MemorySpec
) -> None:
    cat, _ = remember(spec, "The user's cat is called Miso.", "The user drinks green tea.")
    transcript = TableRef.inline(
        user_text_chunk("I love green tea."),
        assistant_turn_chunk(content="Noted."),
        user_text_chunk("What is my cat called?"),
    )
    activities = MemoryActivities(chunks=chunks)
    async with agent_worker(bare_client, activities) as run:
        out = await run(AgentTurn(memory=spec, transcript=transcript, reply="Miso."))
    activities.close()
    assert out.injected.uris == (cat.uri,)


async def test_a_target_limits_injection_to_a_scope(
    bare_client: Client, chunks: ChunkStore, spec: MemorySpec
) -> None:
    (mine,) = remember(spec, "Deploys go out on Tuesdays.", scope="user")
    (agents,) = remember(spec, "Deploys need two approvals.", scope="agent")
    activities = MemoryActivities(chunks=chunks)
    async with agent_worker(bare_client, activities) as run:
        both = await run(
            AgentTurn(memory=spec, transcript=user_turn("How do deploys work?"), reply=".")
        )
        scoped = await run(
            AgentTurn(
                memory=spec,
                transcript=user_turn("How do deploys work?"),
                reply=".",
                target="memory://agent/memories/",
            )
        )
    activities.close()
    assert set(both.injected.uris) == {mine.uri, agents.uri}
    assert scoped.injected.uris == (agents.uri,)


async def test_an_embedding_spec_is_built_on_the_worker(
    bare_client: Client, chunks: ChunkStore, tmp_path: Path
) -> None:
    lisbon, _ = remember(
        MemorySpec(path=str(tmp_path / "memory.db")),
        "The user lives in Lisbon, Portugal.",
        "The user is allergic to peanuts.",
    )
    activities = MemoryActivities(chunks=chunks)
    with FakeEmbeddingServer() as server:
        spec = MemorySpec(
            path=str(tmp_path / "memory.db"),
            embedding=EmbeddingSpec(model="fake-embedding", base_url=server.base_url),
        )
        async with agent_worker(bare_client, activities) as run:
            # A typo no word matches: only the (trigram) embedder can find it.
            out = await run(AgentTurn(memory=spec, transcript=user_turn("Lisbn?"), reply="."))
        activities.close()
        assert server.requests  # the worker embedded the memories and the query
    assert out.injected.uris[0] == lisbon.uri


class FixedHits(MemoryStore):
    """A store (as a remote service might be) whose recall returns fixed hits, scores and all."""

    def __init__(self, hits: list[MemoryHit]) -> None:
        self.hits = hits
        self.queries: list[str] = []

    def remember(
        self,
        content: str,
        scope: str = "user",
        category: str = "preferences",
        *,
        key: str | None = None,
        session_id: str | None = None,
    ) -> MemoryRecord:
        raise NotImplementedError

    def recall(
        self,
        query: str,
        *,
        top_k: int = 4,
        scope: str | None = None,
        mode: RecallMode = "hybrid",
        category: str | None = None,
    ) -> list[MemoryHit]:
        self.queries.append(query)
        return self.hits[:top_k]

    def get(self, uri: str) -> MemoryRecord | None:
        return None

    def forget(self, uri: str) -> bool:
        return False

    def list(self, *, scope: str | None = None, category: str | None = None) -> list[MemoryRecord]:
        return []

    def close(self) -> None:
        pass


def hit(n: int, score: float) -> MemoryHit:
    record = MemoryRecord(
        uri=f"memory://user/memories/facts/{n:016x}",
        content=f"fact number {n}",
        scope="user",
        category="facts",
        created_at=datetime.now(UTC),
    )
    return MemoryHit.of(record, score)


async def test_zero_and_negative_scores_are_never_injected(
    bare_client: Client, chunks: ChunkStore, spec: MemorySpec
) -> None:
    store = FixedHits([hit(1, 0.7), hit(2, 0.0), hit(3, -0.5), hit(1, 0.7)])
    activities = MemoryActivities(lambda _: store, chunks=chunks)
    async with agent_worker(bare_client, activities) as run:
        out = await run(
            AgentTurn(memory=spec, transcript=user_turn("tell me the facts"), reply=".")
        )
    assert out.injected.uris == (hit(1, 0.7).uri,)  # once, though recalled twice
    assert store.queries == ["tell me the facts"]


async def test_no_user_message_means_no_recall(
    bare_client: Client, chunks: ChunkStore, spec: MemorySpec
) -> None:
    store = FixedHits([hit(1, 0.7)])
    activities = MemoryActivities(lambda _: store, chunks=chunks)
    sealed = chunks.seal(TableRef.inline(system_text_chunk("You are terse.")))
    async with agent_worker(bare_client, activities) as run:
        out = await run(AgentTurn(memory=spec, transcript=TableRef.sealed(sealed), reply="."))
    assert out.injected == InjectResult(preview="no user message to recall for")
    assert store.queries == []
