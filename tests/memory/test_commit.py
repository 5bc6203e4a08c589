"""The commit activity through a real worker and the fake LLM: facts stored once, never re-read."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from temporalio import workflow
from temporalio.client import Client, WorkflowFailureError
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.worker import Worker

from rath.activities.llm import LLMActivities
from rath.activities.memory import MemoryActivities
from rath.contracts.memory import CommitArgs
from rath.llm import ProviderSpec, RathLLMTokenUsage
from rath.llm.credentials import VAULT
from rath.memory import CommitResult, LocalMemoryStore, MemoryRecord, MemorySpec, memory_row
from rath.session import TableRef, assistant_turn_chunk, tool_feedback_chunk, user_text_chunk
from rath.store import ChunkStore
from rath.testing import (
    FakeAnthropicServer,
    FakeChatServer,
    FakeServer,
    RecordedRequest,
    Reply,
    error_reply,
    function_handler,
    text_reply,
)

TIMEOUT = 60.0
FAST_RETRY = RetryPolicy(initial_interval=timedelta(milliseconds=50), maximum_attempts=3)
SESSION = "5b1c9f52-0000-4000-8000-000000000001"


@workflow.defn(name="test.MemoryCommit", sandboxed=False)
class CommitWorkflow:
    """Commit a transcript, as an agent run with ``commit_on_forward`` does after its loop."""

    @workflow.run
    async def run(self, args: CommitArgs) -> CommitResult:
        return await workflow.execute_activity_method(
            MemoryActivities.commit,
            args,
            start_to_close_timeout=timedelta(seconds=30),
            heartbeat_timeout=timedelta(seconds=10),
            retry_policy=FAST_RETRY,
        )


class FailAfterFirstWrite(LocalMemoryStore):
    """A local store whose first write succeeds and then fails, as if the worker died there."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.writes = 0
        self._count = threading.Lock()

    def remember(
        self,
        content: str,
        scope: str = "user",
        category: str = "preferences",
        *,
        key: str | None = None,
        session_id: str | None = None,
    ) -> MemoryRecord:
        record = super().remember(content, scope, category, key=key, session_id=session_id)
        with self._count:
            self.writes += 1
            first = self.writes == 1
        if first:
            raise RuntimeError("worker lost right after the write")
        return record


@pytest.fixture
def chunks(tmp_path: Path) -> ChunkStore:
    return ChunkStore(tmp_path / "chunks")


@pytest.fixture
def store(tmp_path: Path) -> LocalMemoryStore:
    return LocalMemoryStore(tmp_path / "memory.db")


def facts_reply(*facts: tuple[str, str]) -> Reply:
    return text_reply(json.dumps([{"content": c, "category": k} for c, k in facts]), usage=(40, 12))


def conversation(store: LocalMemoryStore) -> TableRef:
    """A transcript with an injected memory, a user turn, a tool result and a reply."""
    (cat,) = [store.remember("The user's cat is called Miso.", "user", "profile")]
    return TableRef.inline(
        memory_row(cat),
        user_text_chunk("I moved to Lisbon last month. I work night shifts as a nurse."),
        tool_feedback_chunk("call_1", "read_workspace_file", '{"content": "SECRET-FILE-BODY"}'),
        assistant_turn_chunk(content="Welcome to Lisbon! Night shifts must be hard."),
    )


async def commit(
    client: Client,
    chunks: ChunkStore,
    store: LocalMemoryStore,
    server: FakeServer,
    transcript: TableRef,
    *,
    llm: bool = True,
    provider: ProviderSpec | None = None,
) -> CommitResult:
    chat = LLMActivities(chunks, VAULT) if llm else None
    activities = MemoryActivities(lambda _: store, chunks=chunks, llm=chat)
    queue = f"memory-commit-{uuid.uuid4().hex[:8]}"
    args = CommitArgs(
        memory=MemorySpec(path=str(store.path)),
        transcript=transcript,
        provider=provider or ProviderSpec(model="fake-model", base_url=server.base_url),
        agent_name="helper",
        session_id=SESSION,
    )
    async with (
        chat.running() if chat is not None else contextlib.nullcontext(),  # closes its clients
        Worker(
            client, task_queue=queue, workflows=[CommitWorkflow], activities=[activities.commit]
        ),
    ):
        return await asyncio.wait_for(
            client.execute_workflow(
                CommitWorkflow.run,
                args,
                id=f"memory-commit-{uuid.uuid4().hex[:8]}",
                task_queue=queue,
            ),
            TIMEOUT,
        )


async def test_commit_extracts_facts_and_never_shows_injected_rows(
    bare_client: Client, chunks: ChunkStore, store: LocalMemoryStore
) -> None:
    transcript = conversation(store)
    reply = facts_reply(
        ("The user lives in Lisbon.", "profile"),
        ("The user works night shifts as a nurse.", "profile"),
    )
    with FakeChatServer([reply]) as server:
        result = await commit(bare_client, chunks, store, server, transcript)
    assert (result.written, result.skipped) == (2, 0)
    assert result.usage == RathLLMTokenUsage(40, 12, 52)
    stored = store.list(category="profile")
    assert [r.content for r in stored][1:] == [
        "The user lives in Lisbon.",
        "The user works night shifts as a nurse.",
    ]
    assert all(r.session_id == SESSION for r in stored[1:])
    assert result.uris == tuple(r.uri for r in stored[1:])
    (request,) = server.requests
    prompt = request.messages[-1]["content"]
    conversation_part = prompt.split("Conversation:", 1)[1]
    assert "USER: I moved to Lisbon" in conversation_part
    assert "ASSISTANT: Welcome to Lisbon" in conversation_part
    # The injected memory is listed as known (so it is not extracted again), never as part of
    # the conversation; tool results are never shown.
    assert "[memory]" not in prompt and "Miso" not in conversation_part
    assert "SECRET-FILE-BODY" not in prompt
    assert request.tools == []


async def test_commit_through_anthropic_moves_to_the_next_key(
    bare_client: Client,
    chunks: ChunkStore,
    store: LocalMemoryStore,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The activity asks rath.llm's client for the kind: Anthropic, with a fallback key."""
    revoked, working = "sk-revoked-0123456789abcdef", "sk-working-0123456789abcdef"
    monkeypatch.setenv("RATH_TEST_KEY_A", revoked)
    monkeypatch.setenv("RATH_TEST_KEY_B", working)
    reply = facts_reply(("The user lives in Lisbon.", "profile"))

    def check_key(request: RecordedRequest) -> Reply:
        if request.api_key != working:
            return error_reply(401, f"Incorrect API key provided: {request.api_key}")
        return reply

    transcript = TableRef.inline(user_text_chunk("I moved to Lisbon last month."))
    with FakeAnthropicServer(function_handler(check_key), model="claude-fake") as server:
        spec = ProviderSpec(
            kind="anthropic",
            model="claude-fake",
            base_url=server.base_url,
            api_key_ref="env:RATH_TEST_KEY_A",
            api_key_fallback_refs=("env:RATH_TEST_KEY_B",),
        )
        result = await commit(bare_client, chunks, store, server, transcript, provider=spec)
        assert [r.api_key for r in server.requests] == [revoked, working]
        assert server.requests[0].path.endswith("/messages") and server.requests[0].system
    assert (result.written, result.skipped) == (1, 0)
    assert result.usage is not None and result.usage.total_tokens == 52
    assert [r.content for r in store.list()] == ["The user lives in Lisbon."]


async def test_facts_a_stored_memory_already_says_are_skipped(
    bare_client: Client, chunks: ChunkStore, store: LocalMemoryStore
) -> None:
    store.remember("The user drinks green tea.", "user", "preferences")
    transcript = TableRef.inline(user_text_chunk("Green tea again, and my dog Rex says hi."))
    reply = facts_reply(
        ("the user drinks green tea", "preferences"), ("The user has a dog named Rex.", "profile")
    )
    with FakeChatServer([reply]) as server:
        result = await commit(bare_client, chunks, store, server, transcript)
    assert (result.written, result.skipped) == (1, 1)
    assert [r.content for r in store.list()] == [
        "The user drinks green tea.",
        "The user has a dog named Rex.",
    ]


async def test_a_commit_retried_after_writing_does_not_duplicate(
    bare_client: Client, chunks: ChunkStore, tmp_path: Path
) -> None:
    flaky = FailAfterFirstWrite(tmp_path / "flaky.db")
    transcript = TableRef.inline(user_text_chunk("I live in Lisbon and I am a nurse."))
    reply = facts_reply(
        ("The user lives in Lisbon.", "profile"), ("The user is a nurse.", "profile")
    )
    with FakeChatServer([reply]) as server:  # one reply: a second model call would get HTTP 500
        result = await commit(bare_client, chunks, flaky, server, transcript)
        assert len(server.requests) == 1  # the retry reused the first attempt's facts
    assert flaky.writes == 2  # Lisbon (then the failure); the retry found it and wrote the nurse
    assert [r.content for r in flaky.list()] == [
        "The user lives in Lisbon.",
        "The user is a nurse.",
    ]
    assert (result.written, result.skipped) == (2, 0)
    assert result.uris == tuple(r.uri for r in flaky.list())
    assert result.usage is not None and result.usage.total_tokens == 52
    flaky.close()


async def test_committing_the_same_session_again_adds_nothing(
    bare_client: Client, chunks: ChunkStore, store: LocalMemoryStore
) -> None:
    transcript = TableRef.inline(user_text_chunk("I live in Lisbon."))
    first = facts_reply(("The user lives in Lisbon.", "profile"))
    again = facts_reply(("the user lives in Lisbon", "facts"))  # restated by a second model call
    with FakeChatServer([first, again]) as server:
        one = await commit(bare_client, chunks, store, server, transcript)
        two = await commit(bare_client, chunks, store, server, transcript)
    assert [r.content for r in store.list()] == ["The user lives in Lisbon."]
    assert one.uris == two.uris and two.written == 1 and two.skipped == 0


async def test_a_malformed_reply_is_asked_again(
    bare_client: Client, chunks: ChunkStore, store: LocalMemoryStore
) -> None:
    transcript = TableRef.inline(user_text_chunk("I'm left-handed, by the way."))
    script = [
        text_reply("Sure! The user is left-handed."),
        text_reply('["The user is left-handed."]'),
    ]
    with FakeChatServer(script) as server:
        result = await commit(bare_client, chunks, store, server, transcript)
        assert len(server.requests) == 2
    assert result.written == 1
    assert [(r.content, r.category) for r in store.list()] == [
        ("The user is left-handed.", "facts")
    ]


async def test_nothing_to_extract_makes_no_call(
    bare_client: Client, chunks: ChunkStore, store: LocalMemoryStore
) -> None:
    (cat,) = [store.remember("The user's cat is called Miso.")]
    sealed = chunks.seal(
        TableRef.inline(
            memory_row(cat), tool_feedback_chunk("call_1", "list_workspace_files", "[]")
        )
    )
    with FakeChatServer([]) as server:
        result = await commit(bare_client, chunks, store, server, TableRef.sealed(sealed))
        assert server.requests == []
    assert result == CommitResult()


async def test_a_worker_without_llm_activities_fails_clearly(
    bare_client: Client, chunks: ChunkStore, store: LocalMemoryStore
) -> None:
    transcript = TableRef.inline(user_text_chunk("I live in Lisbon."))
    with FakeChatServer([]) as server, pytest.raises(WorkflowFailureError) as caught:
        await commit(bare_client, chunks, store, server, transcript, llm=False)
    cause = caught.value.cause
    assert isinstance(cause, ActivityError) and isinstance(cause.cause, ApplicationError)
    assert cause.cause.type == "ConfigError" and cause.cause.non_retryable
    assert "LLMActivities" in cause.cause.message
