"""Budgets: tokens, tool calls and time, for one agent and shared across a durable tree."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from support import FAST, fake_provider, history_of
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from rath import Budget, flow
from rath.errors import BudgetExceededError
from rath.session import ChunkKind, Session
from rath.settings import Settings
from rath.testing import (
    FakeChatServer,
    RecordedRequest,
    function_handler,
    text_reply,
    tool_call_reply,
)

LOOK = ("list_workspace_files", {"path": "."})


def always_look(request: RecordedRequest) -> Any:
    """A model that never stops calling a tool (15 tokens a call)."""
    return tool_call_reply(LOOK)


def test_a_token_budget_stops_before_the_call_that_would_exceed_it(
    rath_env: Settings, tmp_path: Path
) -> None:
    with FakeChatServer(function_handler(always_look)) as server:
        agent = flow.Agent(
            "Look.", provider=fake_provider(server), options=FAST, budget=Budget(total_tokens=40)
        )
        out = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        with pytest.raises(BudgetExceededError, match="total_tokens: 45 used of 40") as caught:
            out.synchronize()
        assert len(server.requests) == 3  # 15, 30, 45: the fourth call never started
    partial = caught.value.session
    assert isinstance(partial, Session) and partial.id == out.id
    kinds = [row.kind for row in partial.chunk_table.rows]
    assert kinds == [ChunkKind.USER] + [ChunkKind.ASSISTANT, ChunkKind.TOOL_RESULT] * 3
    assert dict(partial.lineage_extras)["budget.exceeded"] == "total_tokens: 45 used of 40"
    assert partial.usage is not None and partial.usage.total_tokens == 45
    assert caught.value.reason == "total_tokens: 45 used of 40"


async def test_the_run_fails_with_a_budget_exceeded_status(
    rath_env: Settings, client: Client, tmp_path: Path
) -> None:
    with FakeChatServer(function_handler(always_look)) as server:
        agent = flow.Agent("Look.", provider=fake_provider(server, budget_total_tokens=20))
        out = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        with pytest.raises(BudgetExceededError):
            await out
    assert out.run_id is not None
    history = await history_of(client, out.run_id)
    failed = history.events[-1]
    assert failed.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED
    failure = failed.workflow_execution_failed_event_attributes.failure
    assert failure.application_failure_info.type == "BudgetExceeded"
    assert failure.application_failure_info.non_retryable


def test_on_budget_exceeded_gets_the_session_and_its_result_stands(
    rath_env: Settings, tmp_path: Path
) -> None:
    calls: list[tuple[Session, Any]] = []
    with FakeChatServer(function_handler(always_look)) as server:
        provider = fake_provider(
            server, budget_total_tokens=20, on_budget_exceeded=lambda s, u: calls.append((s, u))
        )
        out = flow.Agent("Look.", provider=provider, options=FAST)(
            Session.from_user_message("go").to("local", spec=tmp_path)
        )
        rows = out.chunk_table.rows  # no error: the callback returned
    assert len(rows) == 5 and len(calls) == 1
    session, usage = calls[0]
    assert session.id == out.id and usage.total_tokens == 30


def test_the_callback_fires_when_the_final_round_crosses_the_budget(
    rath_env: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[tuple[Session, Any]] = []
    with FakeChatServer([text_reply("done", usage=(20, 10))]) as server:
        provider = fake_provider(
            server, budget_total_tokens=20, on_budget_exceeded=lambda s, u: calls.append((s, u))
        )
        out = flow.Agent("x", provider=provider, options=FAST)(Session.from_user_message("go"))
        out.synchronize()  # the only round ended the loop and crossed the cap: OpenRath fires
    assert [(s.id, u.total_tokens) for s, u in calls] == [(out.id, 30)]
    with FakeChatServer([text_reply("done", usage=(20, 10))]) as server:
        provider = fake_provider(server, budget_total_tokens=20)
        flow.Agent("x", provider=provider, options=FAST)(
            Session.from_user_message("go")
        ).synchronize()
    assert any("over budget_total_tokens=20" in r.getMessage() for r in caplog.records)


def test_a_callback_that_raises_aborts(rath_env: Settings, tmp_path: Path) -> None:
    def refuse(session: Session, usage: Any) -> None:
        raise BudgetExceededError("over my limit")

    with FakeChatServer(function_handler(always_look)) as server:
        provider = fake_provider(server, budget_total_tokens=20, on_budget_exceeded=refuse)
        out = flow.Agent("Look.", provider=provider, options=FAST)(
            Session.from_user_message("go").to("local", spec=tmp_path)
        )
        with pytest.raises(BudgetExceededError, match="over my limit"):
            out.synchronize()


def test_a_round_asking_for_more_tool_calls_than_remain_runs_none(
    rath_env: Settings, tmp_path: Path
) -> None:
    script = [tool_call_reply(LOOK, LOOK)]
    with FakeChatServer(script) as server:
        agent = flow.Agent(
            "Look.", provider=fake_provider(server), options=FAST, budget=Budget(tool_calls=1)
        )
        out = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        with pytest.raises(BudgetExceededError, match="tool_calls: 2 asked, 1 left") as caught:
            out.synchronize()
    results = caught.value.session.rows_of_kind(ChunkKind.TOOL_RESULT)
    assert len(results) == 2
    assert all('"budget_exceeded"' in row.payload["content"] for row in results)


def test_a_deadline_stops_the_next_call(rath_env: Settings, tmp_path: Path) -> None:
    slow = threading.Event()

    def reply(request: RecordedRequest) -> Any:
        slow.wait(1.2)  # a slow model: the deadline passes during this call
        return tool_call_reply(LOOK)

    with FakeChatServer(function_handler(reply)) as server:
        agent = flow.Agent(
            "Look.", provider=fake_provider(server), options=FAST, budget=Budget(deadline_seconds=1)
        )
        out = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        with pytest.raises(BudgetExceededError, match="deadline"):
            out.synchronize()
        assert len(server.requests) == 1


class Pair(flow.Workflow):
    """Two tool-looping agents on forks (concurrently), then a reviewer on their merge."""

    def __init__(self, provider: flow.Provider) -> None:
        super().__init__()
        self.a = flow.Agent("A.", provider=provider, options=FAST)
        self.b = flow.Agent("B.", provider=provider, options=FAST)
        self.reviewer = flow.Agent("Review.", provider=provider, options=FAST)

    def forward(self, session: Session) -> Session:
        return self.reviewer(self.a(session.fork()).merge(self.b(session.fork())))


def test_two_children_share_their_parents_budget(rath_env: Settings, tmp_path: Path) -> None:
    def reply(request: RecordedRequest) -> Any:
        if request.messages[0]["content"] == "Review.":
            return text_reply("reviewed")
        return tool_call_reply(LOOK)

    with FakeChatServer(function_handler(reply)) as server:
        squad = Pair(fake_provider(server)).with_budget(total_tokens=60)
        out = squad(Session.from_user_message("go").to("local", spec=tmp_path))
        with pytest.raises(BudgetExceededError) as caught:
            out.synchronize()
        roles = [r.messages[0]["content"] for r in server.requests]
    # 60 tokens is four calls of 15 for the whole tree. A call already asked for when the
    # tree ran out still completes, so at most one more per concurrent agent.
    assert "Review." not in roles  # the reviewer never started
    assert 4 <= len(roles) <= 6, roles
    assert {"A.", "B."} <= set(roles)  # both children spent from the one budget
    partial = caught.value.session
    assert partial.id == out.id and "budget.exceeded" in dict(partial.lineage_extras)
    assert partial.usage is not None and partial.usage.total_tokens == 15 * len(roles)
    assert "total_tokens" in caught.value.reason


def test_siblings_that_overshoot_the_trees_tool_calls_stop_the_tree(
    rath_env: Settings, tmp_path: Path
) -> None:
    look_twice = tool_call_reply(LOOK, LOOK)

    def reply(request: RecordedRequest) -> Any:
        return text_reply("reviewed") if request.messages[0]["content"] == "Review." else look_twice

    with FakeChatServer(function_handler(reply)) as server:
        squad = Pair(fake_provider(server)).with_budget(tool_calls=2)
        out = squad(Session.from_user_message("go").to("local", spec=tmp_path))
        with pytest.raises(BudgetExceededError) as caught:
            out.synchronize()
        roles = [r.messages[0]["content"] for r in server.requests]
    # Both saw 2 calls left and ran them at once (the documented overshoot). Once the tree
    # knows it is over, no agent gets another LLM call (one that asked before the other's
    # report came in still may), and the reviewer never starts.
    assert len(roles) <= 3, roles
    assert "Review." not in roles
    assert caught.value.reason.startswith("tool_calls:")
    results = caught.value.session.rows_of_kind(ChunkKind.TOOL_RESULT)
    assert len(results) <= 4


class Looker(flow.Workflow):
    def __init__(self, provider: flow.Provider) -> None:
        super().__init__()
        self.looker = flow.Agent("Look.", provider=provider, options=FAST)

    def forward(self, session: Session) -> Session:
        return self.looker(session)


def test_a_providers_budget_holds_inside_a_durable_forward(
    rath_env: Settings, tmp_path: Path
) -> None:
    with FakeChatServer(function_handler(always_look)) as server:
        out = Looker(fake_provider(server, budget_total_tokens=20))(
            Session.from_user_message("go").to("local", spec=tmp_path)
        )
        with pytest.raises(BudgetExceededError, match="total_tokens: 30 used of 20"):
            out.synchronize()
        assert len(server.requests) == 2


def test_no_compression_once_the_budget_is_spent(rath_env: Settings, tmp_path: Path) -> None:
    """Compressing is an LLM call: not after the budget ran out, and the transcript stays."""
    script = [tool_call_reply(LOOK), text_reply("a summary that must never be asked for")]
    with FakeChatServer(script) as server:
        agent = flow.Agent(
            "Look.",
            provider=fake_provider(server),
            options=FAST,
            budget=Budget(total_tokens=10),
            compress_at_tokens=1,
        )
        out = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        with pytest.raises(BudgetExceededError, match="total_tokens: 15 used of 10") as caught:
            out.synchronize()
        assert len(server.requests) == 1
    kinds = [row.kind for row in caught.value.session.chunk_table.rows]
    assert kinds == [ChunkKind.USER, ChunkKind.ASSISTANT, ChunkKind.TOOL_RESULT]
