"""Fan-out: reduce-merging hundreds of lazy branches stays flat (no recursion, no deep payload)."""

from __future__ import annotations

import functools
import json
import sys

import pytest
from support import FAST, fake_provider
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHistory

from rath import flow
from rath.errors import RunFailedError
from rath.session import Session, TableRef, user_text_chunk
from rath.session.deferred import Deferred
from rath.settings import Settings
from rath.testing import FakeChatServer, function_handler
from rath.workflows._start_window import STARTS_IN_FLIGHT
from rath.workflows.scope import MAX_AGENT_RUNS

AGENTS = 1000
HARD_EVENT_LIMIT = 51_200  # Temporal's per-run history limits (events, bytes)
HARD_SIZE_LIMIT = 50 * 1024 * 1024


class FanOut(flow.Workflow):
    """One agent per branch on forks of the input, then ``reduce(merge)`` of them all."""

    def __init__(self, provider: flow.Provider, agents: int) -> None:
        super().__init__()
        self.agents = agents
        self.worker = flow.Agent("Answer with your branch.", provider=provider, options=FAST)

    def forward(self, session: Session) -> Session:
        outs = [self.worker(session.fork()) for _ in range(self.agents)]
        return functools.reduce(lambda a, b: a.merge(b), outs)


def test_a_reduce_merge_of_many_refs_is_one_level_deep() -> None:
    refs = [TableRef.sealed(f"{i:064x}") for i in range(5000)]
    merged = functools.reduce(TableRef.concat, refs)
    assert len(merged.parts) == 5000 and all(isinstance(p, str) for p in merged.parts)
    assert TableRef.model_validate_json(merged.model_dump_json()) == merged


class _Lazy:
    """A pending source that finishes when told (a stand-in for a run's handle)."""

    def __init__(self) -> None:
        self.finished = False

    def done(self) -> bool:
        return self.finished

    @property
    def run_id(self) -> str:
        return "rath-lazy"

    def result(self) -> Session:
        return Session.from_rows([user_text_chunk("x")])


def test_a_chain_of_thousands_of_lazy_merges_resolves_without_recursion() -> None:
    handles = [_Lazy() for _ in range(3 * sys.getrecursionlimit())]
    leaves = []
    for handle in handles:
        leaf = Session()
        leaf.attach_pending(handle)
        leaves.append(leaf)
    merged = functools.reduce(lambda a, b: a.merge(b), leaves)
    assert isinstance(merged._pending, Deferred) and merged.pending
    for handle in handles:
        handle.finished = True
    assert not merged.pending
    assert len(merged.chunk_table.rows) == len(handles)


def test_a_fork_of_a_finished_lazy_session_starts_from_its_result() -> None:
    handle = _Lazy()
    handle.finished = True  # the run ended; nothing has read its result yet
    leaf = Session()
    leaf.attach_pending(handle)
    assert [row.payload["content"] for row in leaf.fork().chunk_table.rows] == ["x"]


# A thousand child runs on one dev server: 25 s on a quiet machine, minutes on a slow shared
# one, so above the suite's 120 s default. Marked last, it has the cores to itself (the other
# xdist workers wait: tests/machine_turns.py): its forward's first workflow task makes all
# thousand agent calls (0.15 s of CPU), and starved of CPU by three other workers it once
# outlasted the SDK's 2 s deadlock detector, which left the run unevictable. A workflow task
# starts at most STARTS_IN_FLIGHT children (all thousand in one task was over 2 s on its own).
@pytest.mark.last
@pytest.mark.timeout(600)
async def test_a_durable_forward_fans_out_to_a_thousand_and_merges(
    rath_env: Settings, client: Client
) -> None:
    with FakeChatServer(function_handler(lambda request: "done")) as server:
        out = FanOut(fake_provider(server), AGENTS)(Session.from_user_message("go"))
        rows = (await out).chunk_table.rows
    assert len(rows) == 2 * AGENTS  # each branch: the shared user row, then its answer
    assert json.loads(out.model_dump_json())["id"] == str(out.id)
    assert out.run_id is not None
    described = await client.get_workflow_handle(out.run_id).describe()
    events, size = (
        described.raw_description.workflow_execution_info.history_length,
        (described.raw_description.workflow_execution_info.history_size_bytes),
    )
    print(f"forward of {AGENTS} agents: {events} events, {size} bytes of history")
    assert events < HARD_EVENT_LIMIT // 4 and size < HARD_SIZE_LIMIT // 4
    history = await client.get_workflow_handle(out.run_id).fetch_history()
    print(f"its workflow tasks, longest first: {task_seconds(history)[:5]}")
    assert max(starts_per_task(history)) == STARTS_IN_FLIGHT


def test_a_forward_refuses_more_agents_than_its_first_workflow_task_can_make(
    rath_env: Settings,
) -> None:
    with FakeChatServer(function_handler(lambda request: "done")) as server:
        out = FanOut(fake_provider(server), MAX_AGENT_RUNS + 1)(Session.from_user_message("go"))
        with pytest.raises(RunFailedError) as failed:
            out.synchronize()
        assert server.requests == []  # refused before any agent started
    message = str(failed.value)
    assert f"would be agent run {MAX_AGENT_RUNS + 1} of this forward" in message
    assert "several forwards started from plain Python" in message


def starts_per_task(history: WorkflowHistory) -> list[int]:
    """How many child starts each workflow task of ``history`` made."""
    counts = [0]
    for event in history.events:
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
            counts.append(0)
        elif event.event_type == EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
            counts[-1] += 1
    return counts


def task_seconds(history: WorkflowHistory) -> list[float]:
    """Seconds from start to completion of each workflow task of ``history``, longest first."""
    started, seconds = None, []
    for event in history.events:
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
            started = event.event_time.ToDatetime()
        elif event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED and started:
            seconds.append(round((event.event_time.ToDatetime() - started).total_seconds(), 2))
    return sorted(seconds, reverse=True)
