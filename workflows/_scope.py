"""The workflow-side runtime of a durable ``forward``: what agent calls inside it share.

While a :class:`~rath.workflows.forward.ForwardWorkflow` runs user ``forward`` code, a
:class:`WorkflowScope` is current (a context variable, so tasks spawned from it inherit it).
Agent calls schedule child workflows as asyncio tasks in the workflow's deterministic event
loop and return sessions whose pending result is a :class:`TaskHandle`. The scope records
every session made (the run's session graph), rolls usage up, and lets the workflow wait for
every task it spawned before it completes.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any
from uuid import UUID

from temporalio import workflow
from temporalio.common import SearchAttributeKey, SearchAttributePair, TypedSearchAttributes

from rath.budget import Budget
from rath.errors import BudgetExceededError, NotReadyError, UserError
from rath.llm._usage import TokenUsage, add_usage
from rath.session._chunks import ChunkRow
from rath.session._lineage import LineageKind
from rath.session._session import Session
from rath.session._table_ref import TableRef
from rath.session.graph import GraphNode, SessionGraph
from rath.workflows._budget_steps import BudgetGate, TreeKeeper

_LOOP = LineageKind.OP_SESSION_LOOP
SESSION_ID = SearchAttributeKey.for_keyword("RathSessionId")
ROOT_SESSION_ID = SearchAttributeKey.for_keyword("RathRootSessionId")
AGENT = SearchAttributeKey.for_keyword("RathAgent")


def search_attributes(session_id: UUID, root_id: UUID, agent: str) -> TypedSearchAttributes:
    """The search attributes that make a run findable by session, tree and agent."""
    return TypedSearchAttributes(
        [
            SearchAttributePair(SESSION_ID, str(session_id)),
            SearchAttributePair(ROOT_SESSION_ID, str(root_id)),
            SearchAttributePair(AGENT, agent),
        ]
    )


class TaskHandle:
    """A session's pending result inside workflow code: an asyncio task of the workflow."""

    def __init__(self, run_id: str, task: asyncio.Task[Session]) -> None:
        self._run_id = run_id
        self._task = task

    @property
    def run_id(self) -> str:
        """The child workflow id (or the operation) behind the task."""
        return self._run_id

    def done(self) -> bool:
        """True once the task finished."""
        return self._task.done()

    def result(self) -> Session:
        """The task's session; raises its error.

        Raises:
            NotReadyError: The task has not finished.
        """
        if not self._task.done():
            raise NotReadyError(f"run {self._run_id!r} is not finished yet; `await` it first")
        return self._task.result()

    async def wait(self) -> None:
        """Wait for the task (its error surfaces when the session is read)."""
        await asyncio.wait([self._task])


@dataclass
class WorkflowScope:
    """What one durable forward run's agent calls share (see the module docstring)."""

    root_session_id: UUID
    use_search_attributes: bool = True
    demo_fallback: bool = False
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    nodes: dict[UUID, GraphNode] = field(default_factory=dict)
    usage: TokenUsage | None = None
    runs: dict[str, tuple[str, bool]] = field(default_factory=dict)
    keeper: TreeKeeper | None = None

    def spawn(self, run_id: str, coro: Coroutine[Any, Any, Session]) -> TaskHandle:
        """Start ``coro`` as a workflow task now; the run waits for it before completing."""
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.append(task)
        return TaskHandle(run_id, task)

    def record(
        self,
        session: Session,
        *,
        agent: str | None = None,
        run_id: str | None = None,
        inputs: tuple[Session, ...] = (),
    ) -> None:
        """Add (or update) ``session``'s node in the run's graph (and unseen ``inputs`` first)."""
        for source in inputs:
            if source.id not in self.nodes:
                self.record(source)
        node = GraphNode.from_session(session, agent=agent, run_id=run_id)
        previous = self.nodes.get(session.id)
        if previous is not None:
            node = node.model_copy(
                update={
                    "agent": node.agent or previous.agent,
                    "run_id": node.run_id or previous.run_id,
                }
            )
        self.nodes[session.id] = node
        if agent is not None and run_id is not None and session.lineage_kind is _LOOP:
            self.runs[run_id] = (agent, not session.pending)
            workflow.set_current_details(self.details())

    def details(self) -> str:
        """Markdown for the UI's current details: each agent run and whether it finished."""
        done = sum(finished for _, finished in self.runs.values())
        lines = [f"**{done}/{len(self.runs)} agent runs done**"]
        lines += [
            f"- {'✓' if finished else '…'} {agent} `{run_id}`"
            for run_id, (agent, finished) in self.runs.items()
        ]
        return "\n".join(lines)

    def add_usage(self, usage: TokenUsage | None) -> None:
        """Roll one child's usage into the run's total."""
        self.usage = add_usage(self.usage, usage)

    def child_finished(self, run_id: str, result: Session) -> None:
        """A child agent ended (also over budget): roll up its usage, tell the keeper."""
        self.add_usage(result.usage)
        if self.keeper is not None:
            self.keeper.finished(run_id, result.usage)

    def budget_gate(self, own: Budget | None) -> BudgetGate | None:
        """What a child agent with limits ``own`` enforces (``None``: no budget at all)."""
        if self.keeper is not None:
            return self.keeper.gate(own)
        return None if own is None else BudgetGate(own=own)

    def refuse_if_over_budget(self, who: str, session: Session) -> None:
        """Raise before starting ``who`` when the tree's budget has no room left.

        Raises:
            BudgetExceededError: Carrying ``session`` (nothing was done to it).
        """
        reason = self.keeper.refusal() if self.keeper is not None else None
        if reason is not None:
            raise BudgetExceededError(
                f"{who} not started: budget exceeded ({reason})",
                workflow_id=workflow.info().workflow_id,
                session=session,
                reason=reason,
            )

    def graph(self) -> SessionGraph:
        """Every session made so far, in creation order."""
        return SessionGraph(nodes=tuple(self.nodes.values()))

    def search_attributes(self, session_id: UUID, agent: str) -> TypedSearchAttributes | None:
        """Search attributes for a child run (``None`` when they are turned off)."""
        if not self.use_search_attributes:
            return None
        return search_attributes(session_id, self.root_session_id, agent)

    async def settle(self) -> None:
        """Wait for every task spawned, ignoring their errors (the run is failing anyway)."""
        while pending := [task for task in self.tasks if not task.done()]:
            await asyncio.wait(pending)

    async def drain(self) -> None:
        """Wait for every task spawned, even ones ``forward`` never read; raise the first error."""
        while True:
            pending = [task for task in self.tasks if not task.done()]
            if not pending:
                break
            await asyncio.wait(pending)
        for task in self.tasks:
            if task.exception() is not None:
                raise task.exception()  # type: ignore[misc]


_SCOPE: ContextVar[WorkflowScope | None] = ContextVar("rath_workflow_scope", default=None)


def current_scope_or_none() -> WorkflowScope | None:
    """The scope of the durable forward running in this context, if any."""
    return _SCOPE.get()


def current_scope() -> WorkflowScope:
    """The current scope.

    Raises:
        UserError: Called from workflow code that is not a Rath durable forward.
    """
    scope = _SCOPE.get()
    if scope is None:
        raise UserError(
            "agents can be called from workflow code only inside a rath Workflow's forward "
            "(run it with `MyWorkflow(...)(session)`), not from other Temporal workflows"
        )
    return scope


@contextlib.contextmanager
def entered(scope: WorkflowScope) -> Iterator[WorkflowScope]:
    """Make ``scope`` current for the block (and every task spawned in it)."""
    token = _SCOPE.set(scope)
    try:
        yield scope
    finally:
        _SCOPE.reset(token)


READ_TIMEOUT = timedelta(seconds=60)


async def read_rows(table: TableRef) -> tuple[ChunkRow, ...]:
    """Workflow code: load a stored table's rows through the ``rath.session.read`` activity."""
    from rath.activities.session import ReadArgs, ReadResult

    result = await workflow.execute_activity(
        "rath.session.read",
        ReadArgs(table=table),
        result_type=ReadResult,
        start_to_close_timeout=READ_TIMEOUT,
        summary="read session rows",
    )
    rows: tuple[ChunkRow, ...] = result.rows
    return rows
