"""The workflow-side runtime of a durable ``forward``: what its calls share. See docs/modules.md."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Coroutine, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any
from uuid import UUID

from temporalio import workflow
from temporalio.common import TypedSearchAttributes
from temporalio.exceptions import ChildWorkflowError, is_cancelled_exception

from rath.budget import Budget
from rath.contracts.budget import BudgetGate, exceeded_session
from rath.contracts.calls import (
    LoopCall,
    compress_args,
    compress_run_id,
    compress_shell,
    loop_call,
    refuse_persist_in_forward,
    refused_streaming_executor,
    slug,
)
from rath.contracts.runs import SESSION_LOOP
from rath.contracts.session import INTERLEAVE, READ_ROWS, InterleaveArgs, ReadArgs
from rath.errors import BudgetExceededError, ConfigError, NotReadyError, RunFailedError, UserError
from rath.llm.chat_response import RathLLMTokenUsage, add_usage
from rath.llm.provider import spec_from_provider
from rath.session.chunk import ChunkRow
from rath.session.graph import GraphNode, SessionGraph
from rath.session.graph.kind import LineageKind
from rath.session.host import CompressJob, LoopRequest, hosted_by
from rath.session.merge import merged_usage
from rath.session.placement import Placement
from rath.session.session import Session
from rath.session.table_ref import TableRef
from rath.tools.agent_tools import agent_tool_set
from rath.utils.failures import describe_failure
from rath.workflows._old_children import OldChildren
from rath.workflows._run_tasks import RunTasks
from rath.workflows._start_window import StartWindow
from rath.workflows._tree_budget import TreeKeeper
from rath.workflows._versions import has_change
from rath.workflows.compress import compressed, execute_compress
from rath.workflows.search_attributes import search_attributes

_LOOP = LineageKind.OP_SESSION_LOOP
READ_TIMEOUT = timedelta(seconds=60)
INTERLEAVE_TIMEOUT = timedelta(seconds=120)


class TaskHandle:
    """A session's pending result inside workflow code: an asyncio task of the workflow."""

    def __init__(self, run_id: str, task: asyncio.Task[Session], tasks: RunTasks) -> None:
        self._run_id = run_id
        self._task = task
        self._tasks = tasks

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
        """Wait for the task (its error surfaces when the session is read).

        Raises:
            Exception: Another task of the run failed first (``RunTasks``' fail-fast policy).
        """
        await self._tasks.wait(self._task)


MAX_AGENT_RUNS = 2000
"""Agent runs one durable forward may start. Its forward body makes every agent call in its
first workflow task, about 0.15 ms each (measured at 1,000: 0.15 s), and the SDK fails a task
that runs 2 s; 2,000 leaves a busy worker's share of a core room for it. (History is not the
bound: a 1,000-agent forward wrote 5,314 events and 3.2 MB of Temporal's 51,200 and 50 MB.)"""

DETAILS_RUNS = 20
"""Agent runs the UI's current details list by name (the count covers them all)."""


@dataclass
class WorkflowScope:
    """What one durable forward run's agent calls share (see docs/modules.md)."""

    root_session_id: UUID
    use_search_attributes: bool = True
    demo_fallback: bool = False
    tasks: RunTasks = field(default_factory=lambda: RunTasks(fail_fast=False))
    nodes: dict[UUID, GraphNode] = field(default_factory=dict)
    usage: RathLLMTokenUsage | None = None
    runs: dict[str, tuple[str, bool]] = field(default_factory=dict)
    runs_done: int = 0
    keeper: TreeKeeper | None = None
    old_children: OldChildren = field(default_factory=OldChildren)
    start_window: StartWindow = field(default_factory=StartWindow)

    def spawn(self, run_id: str, coro: Coroutine[Any, Any, Session]) -> TaskHandle:
        """Start ``coro`` as a workflow task now; the run waits for it before completing."""
        return TaskHandle(run_id, self.tasks.start(run_id, coro), self.tasks)

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
            finished, (_, was_done) = not session.pending, self.runs.get(run_id, (agent, False))
            self.runs[run_id] = (agent, finished)
            self.runs_done += int(finished) - int(was_done)
            workflow.set_current_details(self.details())

    def details(self) -> str:
        """Markdown for the UI's current details: the agent runs done, and the first few runs.

        Bounded, because every start and finish rewrites it: listing a thousand-agent forward
        in full each time was quadratic, long enough to trip the SDK's deadlock detector.
        """
        lines = [f"**{self.runs_done}/{len(self.runs)} agent runs done**"]
        lines += [
            f"- {'✓' if finished else '…'} {agent} `{run_id}`"
            for run_id, (agent, finished) in itertools.islice(self.runs.items(), DETAILS_RUNS)
        ]
        if len(self.runs) > DETAILS_RUNS:
            lines.append(f"- … and {len(self.runs) - DETAILS_RUNS} more")
        return "\n".join(lines)

    def add_usage(self, usage: RathLLMTokenUsage | None) -> None:
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

    # -- the sessions' host (SessionHost) ------------------------------------------------

    def check_backend(self, backend: str) -> None:
        """Names are checked where the sandbox opens, on the worker."""

    def load_rows(self, table: TableRef) -> tuple[ChunkRow, ...]:
        """Refused: workflow code does no I/O; ``await`` the session instead."""
        raise NotReadyError(
            "this session's rows live in the chunk store, which workflow code cannot read "
            "(no I/O in workflows); `await` the session in an `async def forward`"
        )

    async def read_rows(self, table: TableRef) -> tuple[ChunkRow, ...]:
        """Load a stored table's rows through the ``rath.session.read`` activity."""
        result = await READ_ROWS.execute(
            ReadArgs(table=table), start_to_close_timeout=READ_TIMEOUT, summary="read session rows"
        )
        return result.rows

    def hold(self, session: Session) -> None:
        """Sandbox holds are the client's; a run's sessions hold nothing."""

    def release(self, placement: Placement, holder: str) -> bool:
        """Nothing is held in workflow code."""
        return False

    def interleave(self, out: Session, ours: Session, theirs: Session) -> None:
        """Run ``rath.session.interleave`` as a task of the run once both are ready."""
        shell = out.model_copy()

        async def run() -> Session:
            await ours.ready()
            await theirs.ready()
            result = await INTERLEAVE.execute(
                InterleaveArgs(ours=ours.table, theirs=theirs.table),
                start_to_close_timeout=INTERLEAVE_TIMEOUT,
                summary=f"merge · interleave_by_time · session {shell.id.hex[:8]}",
            )
            table = TableRef.sealed(result.table)
            usage = merged_usage(ours, theirs)
            return shell._settled(table, None, usage, sandbox=ours.sandbox or theirs.sandbox)

        out.attach_pending(self.spawn(f"merge-{out.id.hex[:12]}", run()))

    def compress(self, job: CompressJob) -> None:
        """Run the compression activity as a task of the run."""
        if job.executor is not None or job.on_event is not None:
            what = "executor=" if job.executor is not None else "on_event="
            raise ConfigError(
                f"{what} calls an object of the calling process, which a durable forward "
                "cannot reach: give the compressor a provider (and read the summary when ready)"
            )
        refuse_persist_in_forward(job.persist)
        self.start_compress(job)

    def run_loop(self, request: LoopRequest) -> None:
        """Schedule the agent run as a child ``rath.SessionLoop`` (see :meth:`start_loop`)."""
        call = loop_call(request, agent_tool_set(request.tools, request.tool_policy))
        if refused_streaming_executor(request):
            return
        if request.executor is not None:
            raise ConfigError(
                "executor= calls an object of the calling process, which a durable forward "
                "cannot reach: give the agent a provider (or rath.llm.register_chat_client "
                "a kind the workers know)"
            )
        refuse_persist_in_forward(request.persist)
        self.start_loop(call)

    def open_handle(self, placement: Placement) -> Any:
        """Refused: workflow code opens no sandbox (tools run in activities)."""
        raise UserError(
            "require_sandbox() opens a sandbox handle, which workflow code cannot hold (no "
            "I/O in workflows); the agents' tools use the session's sandbox already"
        )

    def attach(self, session_or_run: UUID | str) -> Session:
        """Refused: attaching asks Temporal, which workflow code cannot."""
        raise UserError("rath.session.attach asks Temporal: call it from plain Python")

    def catalog(self) -> Any:
        """Refused: the catalog is in the store, which workflow code cannot read."""
        raise UserError(
            "rath.session.persistence reads the store (no I/O in workflows): call it from "
            "plain Python, or in an activity"
        )

    def run_forward(
        self, module: Any, session: Session, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Session:
        """A nested module's ``forward`` runs inline, as part of this run."""
        return module.forward(session, *args, **kwargs)  # type: ignore[no-any-return]

    # -- work started by forward code -------------------------------------------------------

    def start_loop(self, call: LoopCall) -> None:
        """Schedule ``call`` as a child ``rath.SessionLoop``; ``call.out`` becomes its result."""
        name, run_id, out, user = call.name, call.run_id, call.out, call.user
        if call.on_event is not None:
            raise ConfigError(
                f"agent {name!r}: on_event cannot reach your process from inside a durable "
                "forward; call module.forward(session) from plain Python instead (each agent "
                "a top-level run that streams), or follow a run with rath.streaming.follow_events"
            )
        if len(self.runs) >= MAX_AGENT_RUNS:
            raise UserError(
                f"agent {name!r} would be agent run {len(self.runs) + 1} of this forward; one "
                f"forward starts at most {MAX_AGENT_RUNS} (its first workflow task makes every "
                "agent call, and Temporal fails a task that runs 2 s): split the fan-out "
                "across several forwards started from plain Python (each top-level "
                "module(session) call is a run of its own) and merge their results there"
            )
        spec = spec_from_provider(call.provider, demo_fallback=self.demo_fallback)

        async def run() -> Session:
            await user.ready()
            await call.agent.ready()
            self.refuse_if_over_budget(f"agent {name!r}", user)
            await self.old_children.before_start(run_id)
            try:
                async with self.start_window.slot():
                    child = await SESSION_LOOP.start_child(
                        call.input(spec, self.budget_gate(call.budget)),
                        id=run_id,
                        static_summary=call.summary(spec),
                        static_details=call.details(spec),
                        search_attributes=self.search_attributes(out.id, name),
                        # Closing (cancelled, failed, timed out) cancels the agents still
                        # running, which then record themselves; never terminates them.
                        parent_close_policy=workflow.ParentClosePolicy.REQUEST_CANCEL,
                    )
                result = await child
            except ChildWorkflowError as exc:
                over = exceeded_session(exc)
                if over is not None:
                    message, partial = over
                    self.child_finished(run_id, partial)
                    self.record(partial, agent=name, run_id=run_id)
                    reason = str(dict(partial.lineage_extras).get("budget.exceeded", ""))
                    raise BudgetExceededError(
                        message, workflow_id=run_id, session=partial, reason=reason
                    ) from exc
                what = (
                    "was cancelled"
                    if is_cancelled_exception(exc)
                    else f"failed: {describe_failure(exc.cause or exc)}"
                )
                raise RunFailedError(
                    f"agent {name!r} (run {run_id!r}) {what}", workflow_id=run_id
                ) from exc
            self.child_finished(run_id, result)
            self.record(result, agent=name, run_id=run_id)
            return result

        out.attach_pending(self.spawn(run_id, run()))
        self.record(out, agent=name, run_id=run_id, inputs=(user, call.agent))

    def start_compress(self, job: CompressJob) -> None:
        """Run the compression activity as a task; ``job.out`` becomes its result."""
        spec = spec_from_provider(job.provider, demo_fallback=self.demo_fallback)

        async def run() -> Session:
            await job.user.ready()
            await job.agent.ready()
            result = await execute_compress(compress_args(job, spec))
            self.add_usage(result.usage)
            return compressed(compress_shell(job), result)

        job.out.attach_pending(self.spawn(compress_run_id(job), run()))
        self.record(job.out, agent=slug(job.name), inputs=job.inputs)

    def has_change(self, patch_id: str, *, since: int = 1) -> bool:
        """Whether this run has the change ``patch_id`` (by its code version, else a patch)."""
        return has_change(patch_id, since=since)

    def start_task(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run ``coro`` as a task the run waits for (memory calls return these to ``await``)."""
        return self.tasks.start("memory", coro)

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
        await self.tasks.settle()

    async def drain(self) -> None:
        """Wait for every task spawned, even ones ``forward`` never read; raise the first error."""
        await self.tasks.drain()


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
        with hosted_by(scope):
            yield scope
    finally:
        with contextlib.suppress(ValueError):  # closed from another context on eviction
            _SCOPE.reset(token)
