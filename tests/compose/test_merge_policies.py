"""``interleave_by_time`` and ``summarize`` merges, in a durable forward and from plain Python."""

from __future__ import annotations

import threading

from support import FAST, fake_provider, history_of
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from rath import flow
from rath.flow import Provider
from rath.session import ChunkKind, LineageKind, Session, Summarize
from rath.session.graph import SessionGraph
from rath.settings import Settings
from rath.testing import FakeChatServer, RecordedRequest, function_handler

WAIT = 30.0


class SlowFirst:
    """Fake model: ``A`` answers only once ``C`` was asked, which follows ``B``'s finished run.

    So B's row is certainly older than A's; A's and C's rows are made at about the same time.
    """

    def __init__(self) -> None:
        self.c_asked = threading.Event()

    def __call__(self, request: RecordedRequest) -> str:
        role = request.messages[0]["content"]
        if role == "C.":
            self.c_asked.set()
        elif role == "A." and not self.c_asked.wait(WAIT):
            raise AssertionError("C was never asked")
        return f"{role} done"


class Branches(flow.Workflow):
    """A on one fork, B then C on another, merged by ``policy``."""

    def __init__(self, provider: Provider, policy: str) -> None:
        super().__init__()
        self.provider = provider
        self.policy = policy
        self.a = flow.Agent("A.", provider=provider, options=FAST)
        self.b = flow.Agent("B.", provider=provider, options=FAST)
        self.c = flow.Agent("C.", provider=provider, options=FAST)

    def forward(self, session: Session) -> Session:
        a, b = self.a(session.fork()), self.c(self.b(session.fork()))
        if self.policy == "summarize":
            return a.merge(b, policy=Summarize(provider=self.provider, instruction="Merge it."))
        return a.merge(b, policy="interleave_by_time")


def activity_types(history: object) -> list[str]:
    scheduled = EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    return [
        event.activity_task_scheduled_event_attributes.activity_type.name
        for event in history.events  # type: ignore[attr-defined]
        if event.event_type == scheduled
    ]


def texts(session: Session) -> list[str]:
    return [row.payload["content"] for row in session.chunk_table.rows]


def assert_interleaved(session: Session) -> None:
    """The shared row once, then B's reply (made first), then A's and C's (concat would give
    ``go, A, go, B, C``)."""
    got = texts(session)
    assert got[:2] == ["go", "B. done"] and sorted(got[2:]) == ["A. done", "C. done"]
    times = [row.at for row in session.chunk_table.rows[1:]]
    assert None not in times and times == sorted(times)  # type: ignore[type-var]


async def test_interleave_by_time_in_a_forward_orders_branches_by_when_rows_were_made(
    rath_env: Settings, client: Client
) -> None:
    with FakeChatServer(function_handler(SlowFirst())) as server:
        out = Branches(fake_provider(server), "interleave_by_time")(Session.from_user_message("go"))
        await out
    assert_interleaved(out)
    assert out.run_id is not None
    history = await history_of(client, out.run_id)
    # The rows were merged by one activity in the store; only the digest entered history.
    assert activity_types(history) == ["rath.session.interleave"]
    assert b"A. done" not in history.to_json().encode()
    assert out.usage is not None and out.usage.total_tokens > 0


async def test_summarize_in_a_forward_writes_one_row_for_both_branches(
    rath_env: Settings, client: Client
) -> None:
    handler = SlowFirst()

    def reply(request: RecordedRequest) -> str:
        if request.messages[-1]["content"] == "Merge it.":
            return "merged account of A and B"
        return handler(request)

    with FakeChatServer(function_handler(reply)) as server:
        out = Branches(fake_provider(server), "summarize")(Session.from_user_message("go"))
        await out
        summary_request = server.requests[-1]
    assert [(row.kind, row.payload["content"]) for row in out.chunk_table.rows] == [
        (ChunkKind.USER, "merged account of A and B")
    ]
    # The model read both branches, one after the other, then the merge instruction.
    said = [m["content"] for m in summary_request.messages]
    assert said.index("A. done") < said.index("B. done") < said.index("C. done")
    assert said[-1] == "Merge it."
    assert out.run_id is not None
    graph = await client.get_workflow_handle(out.run_id).query("graph", result_type=SessionGraph)
    merges = [n for n in graph.nodes if n.lineage_kind is LineageKind.OP_MERGE]
    assert len(merges) == 1 and dict(merges[0].lineage_extras) == {"merge.policy": "summarize"}
    assert len(merges[0].parent_session_ids) == 2
    history = await history_of(client, out.run_id)
    assert activity_types(history) == ["rath.llm.compress"]


def test_merge_policies_from_plain_python(rath_env: Settings) -> None:
    with FakeChatServer(function_handler(SlowFirst())) as server:
        provider = fake_provider(server)
        root = Session.from_user_message("go")
        a = flow.Agent("A.", provider=provider, options=FAST)(root.fork())
        b_first = flow.Agent("B.", provider=provider, options=FAST)(root.fork())
        b = flow.Agent("C.", provider=provider, options=FAST)(b_first)
        interleaved = a.merge(b, policy="interleave_by_time")
        summary = a.merge(b, policy=Summarize(provider=provider, name="joiner"))
        assert interleaved.pending and summary.pending  # neither blocks the caller
        assert_interleaved(interleaved)
        rows = summary.chunk_table.rows
    assert len(rows) == 1 and rows[0].kind is ChunkKind.USER
    assert summary.run_id is not None and summary.run_id.startswith("rath-joiner-")
    assert interleaved.parent_session_ids == summary.parent_session_ids == (a.id, b.id)
    assert dict(interleaved.lineage_extras) == {"merge.policy": "interleave_by_time"}
    # Usage carries both branches', plus the summary's own call for summarize.
    assert a.usage is not None and b.usage is not None and summary.usage is not None
    assert interleaved.usage == a.usage + b.usage
    assert summary.usage.total_tokens > interleaved.usage.total_tokens  # type: ignore[union-attr]
