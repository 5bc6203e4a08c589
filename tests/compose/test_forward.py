"""A user's ``Workflow.forward`` runs as durable workflow code, agents as child workflows."""

from __future__ import annotations

import asyncio
import time

import pytest
from squad_app import Squad, role_of
from support import FAST, fake_provider, history_of
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowFailureError
from temporalio.worker import Worker

from rath import flow, run_graph
from rath.contracts.modules import ModuleSpec
from rath.contracts.runs import FORWARD, ForwardInput
from rath.errors import RunFailedError
from rath.flow import Provider
from rath.llm.chat_response import usage_json
from rath.session import ChunkKind, LineageKind, Session
from rath.session.graph import SessionGraph
from rath.session.persistence import load_session
from rath.settings import Settings
from rath.store import current_catalog
from rath.testing import FakeChatServer, RecordedRequest, function_handler
from rath.workflows.search_attributes import AGENT, SESSION_ID


def squad_reply(request: RecordedRequest) -> str:
    role = role_of(request.messages[0]["content"])
    return f"{role} says: done ({len(request.messages)} messages seen)"


def child_events(history: object) -> list[tuple[str, str]]:
    """``(event, child workflow id)`` for child starts and completions, in history order."""
    out: list[tuple[str, str]] = []
    for event in history.events:  # type: ignore[attr-defined]
        if event.event_type == EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
            attrs = event.start_child_workflow_execution_initiated_event_attributes
            out.append(("started", attrs.workflow_id))
        elif event.event_type == EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED:
            attrs = event.child_workflow_execution_completed_event_attributes
            out.append(("completed", attrs.workflow_execution.workflow_id))
    return out


async def test_squad_runs_as_parent_with_one_child_per_agent_forks_in_parallel(
    rath_env: Settings, client: Client
) -> None:
    with FakeChatServer(function_handler(squad_reply)) as server:
        out = Squad(fake_provider(server), options=FAST)(Session.from_user_message("build it"))
        assert out.lineage_kind is LineageKind.OP_WORKFLOW and out.pending
        assert out.run_id is not None and out.run_id.startswith("rath-Squad-")
        await out
    contents = [row.payload["content"] for row in out.chunk_table.rows]
    assert contents[0] == "build it"
    assert contents[-1] == "reviewer says: done (7 messages seen)"  # system + concat merge
    assert [c.split(" says")[0] for c in contents[1:3]] == ["planner", "coder_a"]

    history = await history_of(client, out.run_id)
    # Forks and the merge are reference operations in workflow code: no activity reads rows.
    scheduled = EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    assert not [event for event in history.events if event.event_type == scheduled]
    events = child_events(history)
    agents = [wid.split("-")[1] for kind, wid in events if kind == "started"]
    assert agents == ["planner", "coder_a", "coder_b", "reviewer"]
    order = [(kind, wid.split("-")[1]) for kind, wid in events]
    # Both coders were started before either finished: the forks ran concurrently.
    assert order.index(("started", "coder_b")) < order.index(("completed", "coder_a"))
    assert out.usage is not None and out.usage.total_tokens > 0  # rolled up over 4 agents


async def test_graph_query_lists_every_session_with_its_agent(
    rath_env: Settings, client: Client
) -> None:
    with FakeChatServer(function_handler(squad_reply)) as server:
        out = Squad(fake_provider(server), options=FAST)(Session.from_user_message("build it"))
        await out
    graph = await client.get_workflow_handle(out.run_id).query("graph", result_type=SessionGraph)
    kinds = [node.lineage_kind for node in graph.nodes]
    assert kinds.count(LineageKind.OP_SESSION_LOOP) == 4
    assert kinds.count(LineageKind.OP_FORK) == 2 and kinds.count(LineageKind.OP_MERGE) == 1
    final = graph.by_id[out.id]
    assert final.lineage_kind is LineageKind.OP_WORKFLOW and final.agent == "Squad"
    reviewer = graph.by_id[final.parent_session_ids[1]]
    assert reviewer.agent == "reviewer" and reviewer.run_id and "reviewer" in reviewer.run_id
    merge = graph.by_id[reviewer.parent_session_ids[0]]
    coders = {graph.by_id[parent].agent for parent in merge.parent_session_ids}
    assert coders == {"coder_a", "coder_b"}
    assert out.parent_session_ids == final.parent_session_ids  # learned when the run ended
    graph.validate()  # every parent present (the user message and agent prompts too), no cycle
    assert "reviewer" in graph.to_mermaid() and "coder_a" in graph.to_dot()
    assert run_graph(out).by_id.keys() == graph.by_id.keys()  # the same, from sync client code


async def test_search_attributes_find_every_run_of_a_tree(
    rath_env: Settings, client: Client
) -> None:
    with FakeChatServer(function_handler(squad_reply)) as server:
        out = Squad(fake_provider(server), options=FAST)(Session.from_user_message("build it"))
        await out
    query = f"RathRootSessionId = '{out.id}'"
    deadline = time.monotonic() + 20  # visibility is eventually consistent: poll, bounded
    while True:
        found = {wf.id: wf async for wf in client.list_workflows(query)}
        if len(found) >= 5 or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.2)
    agents = sorted(wf.typed_search_attributes.get(AGENT) or "" for wf in found.values())
    assert agents == ["Squad", "coder_a", "coder_b", "planner", "reviewer"]
    assert found[out.run_id].typed_search_attributes.get(SESSION_ID) == str(out.id)


class Branching(flow.Workflow):
    """An async forward that reads a session's content to decide what to do next."""

    def __init__(self, provider: Provider) -> None:
        super().__init__()
        self.triage = flow.Agent("Triage.", provider=provider, options=FAST)
        self.fixer = flow.Agent("Fix.", provider=provider, options=FAST)

    async def forward(self, session: Session) -> Session:
        verdict = await self.triage(session)
        if "broken" in verdict.rows_of_kind(ChunkKind.ASSISTANT)[-1].payload["content"]:
            return self.fixer(verdict)
        return verdict


async def test_async_forward_awaits_a_session_to_branch_on_it(
    rath_env: Settings, client: Client
) -> None:
    with FakeChatServer(function_handler(lambda r: "it is broken")) as server:
        out = await Branching(fake_provider(server))(Session.from_user_message("check"))
        assert len(server.requests) == 2
    with FakeChatServer(function_handler(lambda r: "all fine")) as server:
        out = await Branching(fake_provider(server))(Session.from_user_message("check"))
        assert len(server.requests) == 1
    assert out.chunk_table.rows[-1].payload["content"] == "all fine"


class Impatient(flow.Workflow):
    def __init__(self, provider: Provider) -> None:
        super().__init__()
        self.solo = flow.Agent("Solo.", provider=provider, options=FAST)

    def forward(self, session: Session) -> Session:
        out = self.solo(session)
        print(out.chunk_table)  # reads a lazy session in sync workflow code
        return out


async def test_reading_a_lazy_session_in_sync_forward_fails_the_run_clearly(
    rath_env: Settings,
) -> None:
    with FakeChatServer(function_handler(lambda r: "hi")) as server:
        out = Impatient(fake_provider(server))(Session.from_user_message("x"))
        with pytest.raises(RunFailedError, match=r"not finished yet; `await` it.*async def"):
            await out


async def test_a_forward_output_is_catalogued_like_an_agent_output(rath_env: Settings) -> None:
    with FakeChatServer(function_handler(squad_reply)) as server:
        user = Session.from_user_message("build it")
        out = await Squad(fake_provider(server), options=FAST)(user)
        failed = Impatient(fake_provider(server))(Session.from_user_message("x"))
        with pytest.raises(RunFailedError):
            await failed
    # Any process sharing the data dir reads the Squad's output back without Temporal.
    done = load_session(out.id)
    assert done.closed
    assert [r.payload["content"] for r in done.chunk_table.rows] == [
        r.payload["content"] for r in out.chunk_table.rows
    ]
    record = current_catalog().get(out.id)
    assert record is not None and record.status == "completed"
    assert (record.agent, record.operator) == ("Squad", "Squad.forward")
    assert record.parents == out.parent_session_ids and record.parents[0] == user.id
    assert out.usage is not None and record.usage == usage_json(out.usage)
    broken = current_catalog().get(failed.id)
    assert broken is not None and broken.status == "failed"
    assert broken.error is not None and "not finished yet" in broken.error


async def test_a_class_no_worker_registered_fails_with_the_fix(
    rath_env: Settings, client: Client
) -> None:
    async with Worker(client, task_queue=rath_env.task_queue):
        handle = await client.start_workflow(
            FORWARD.name,
            ForwardInput(
                module=ModuleSpec(target="nowhere.pkg:Ghost"),
                session=Session.from_user_message("x"),
                output_id=Session().id,
            ),
            id=f"ghost-{Session().id.hex[:8]}",
            task_queue=rath_env.task_queue,
            result_type=Session,
        )
        with pytest.raises(WorkflowFailureError) as failure:
            await handle.result()
    message = str(failure.value.__cause__)
    assert "'nowhere.pkg:Ghost' is not registered" in message
    assert "rath worker --workflows package.module:Ghost" in message
