"""Starting durable runs from plain Python, each with a lazy session. See docs/modules.md."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

from temporalio import exceptions as temporal
from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowFailureError,
    WorkflowHandle,
)
from temporalio.common import TypedSearchAttributes
from temporalio.service import RPCError, RPCStatusCode

from rath.contracts.budget import BudgetGate, exceeded_session
from rath.contracts.calls import (
    LoopCall,
    compress_args,
    compress_details,
    compress_run_id,
    compress_shell,
    compress_summary,
    slug,
)
from rath.contracts.llm import ExecutorRef
from rath.contracts.runs import COMPRESS_RUN, SESSION_LOOP, CompressInput, SessionLoopInput
from rath.errors import BudgetExceededError, RunFailedError, RunUnreachableError
from rath.llm.executors import EXECUTORS
from rath.llm.provider import provider_spec
from rath.runtime.follow import follow_started_run
from rath.runtime.interrupt import waiting_on
from rath.runtime.progress import (
    SHOW_AFTER,
    progress_enabled,
    wait_noting_missing_worker,
    wait_showing_progress,
)
from rath.runtime.runtime import Runtime, get_runtime
from rath.runtime.sandboxes import hold
from rath.session.deferred import PendingResult
from rath.session.graph import record_session
from rath.session.host import CompressJob
from rath.session.placement import Placement
from rath.session.session import Session
from rath.settings import DEFAULT_OUTAGE_SECONDS, Settings
from rath.utils.failures import describe_failure
from rath.workflows.search_attributes import search_attributes

T = TypeVar("T")
logger = logging.getLogger("rath.runtime")
BudgetCallback = Callable[[Any, Any], None]
"""OpenRath's ``on_budget_exceeded(session, usage)``."""


class RunHandle(PendingResult[Any]):
    """The pending result of one durable run."""

    def __init__(
        self,
        run_id: str,
        future: concurrent.futures.Future[Any],
        *,
        workflow: str = "",
        runtime: Runtime | None = None,
    ) -> None:
        self._run_id = run_id
        self._future = future
        self._workflow = workflow
        self._runtime = runtime
        self.on_read: Callable[[Session], None] | None = None
        """Called by ``Session.synchronize`` with the caller's session once it holds the result."""

    @property
    def run_id(self) -> str:
        """The workflow id."""
        return self._run_id

    def done(self) -> bool:
        """True once the run has finished."""
        return self._future.done()

    def result(self) -> Any:
        """Wait for the run; failures become :class:`RunFailedError` naming the workflow id."""
        with waiting_on(self._run_id):
            if self._runtime is None:
                return self._future.result()
            try:
                return self._future.result(timeout=SHOW_AFTER)
            except concurrent.futures.TimeoutError:
                if progress_enabled():
                    return wait_showing_progress(
                        self._runtime, self._run_id, self._workflow, self._future
                    )
                return wait_noting_missing_worker(self._runtime, self._run_id, self._future)

    def add_done_callback(self, fn: Callable[[concurrent.futures.Future[Any]], None]) -> None:
        """Call ``fn`` with the run's future once it has a result or an error."""
        self._future.add_done_callback(fn)

    async def wait(self) -> None:
        """Await the run from asyncio code without blocking the loop."""
        await asyncio.shield(asyncio.wrap_future(self._future))


async def run_workflow(
    runtime: Runtime,
    *,
    workflow: str,
    workflow_id: str,
    make_input: Callable[[], Any],
    result_type: type[T],
    wait_for: tuple[Callable[[], Awaitable[object]], ...] = (),
    static_summary: str | None = None,
    search_attributes: TypedSearchAttributes | None = None,
    on_budget_exceeded: BudgetCallback | None = None,
    on_started: Callable[[], None] | None = None,
    task_queue: str | Callable[[], str | None] | None = None,
    static_details: str | None = None,
    serve_local: bool = False,
) -> T:
    """Start a workflow once its inputs are ready, and wait for its result."""
    for ready in wait_for:
        await ready()
    client = await runtime.client()
    await runtime.serve_registered_code()
    if serve_local:
        await runtime.serve_local_queue()
    queue = task_queue() if callable(task_queue) else task_queue
    handle = await client.start_workflow(
        workflow,
        make_input(),
        id=workflow_id,
        task_queue=queue or runtime.settings.task_queue,
        result_type=result_type,
        static_summary=static_summary,
        static_details=static_details,
        search_attributes=search_attributes if runtime.search_attributes else None,
    )
    runtime.begun.add(workflow_id)
    if on_started is not None:
        on_started()
    outage = runtime.settings.outage_seconds
    result: T = await run_result(client, handle, result_type, on_budget_exceeded, outage=outage)
    return result


async def run_result(
    client: Client,
    handle: WorkflowHandle[Any, T],
    result_type: type[T],
    on_budget_exceeded: BudgetCallback | None = None,
    *,
    outage: float = DEFAULT_OUTAGE_SECONDS,
) -> T:
    """The run's result; a failure is a :class:`RunFailedError` naming the workflow id."""
    workflow_id = handle.id
    try:
        while True:
            try:
                result: T = await _outliving_outages(handle, workflow_id, outage)
                return result
            except WorkflowFailureError as exc:
                successor = await _successor(client, handle, result_type, exc)
                if successor is None:
                    raise
                logger.info("run %s was reset: following its new run", workflow_id)
                handle = successor
    except WorkflowFailureError as exc:
        over = exceeded_session(exc)
        if over is None:
            raise RunFailedError(
                f"run {workflow_id!r} {_how_it_ended(exc.cause or exc)}", workflow_id=workflow_id
            ) from exc
        message, partial = over
        if on_budget_exceeded is not None:
            on_budget_exceeded(partial, partial.usage)
            return cast(T, partial)
        reason = str(dict(partial.lineage_extras).get("budget.exceeded", ""))
        raise BudgetExceededError(
            f"run {workflow_id!r}: {message}",
            workflow_id=workflow_id,
            session=partial,
            reason=reason,
        ) from None


def _how_it_ended(cause: BaseException) -> str:
    """``failed: ...``, or how a run ended that did not fail (terminated, cancelled, timed out)."""
    verb = {
        temporal.TerminatedError: "was terminated",
        temporal.CancelledError: "was cancelled",
        temporal.TimeoutError: "timed out",
    }.get(type(cause), "failed")
    return f"{verb}: {describe_failure(cause)}"


async def _successor(
    client: Client, handle: WorkflowHandle[Any, T], result_type: type[T], exc: BaseException
) -> WorkflowHandle[Any, T] | None:
    """The newest run of a workflow id after the run waited on was reset, else None."""
    if not isinstance(getattr(exc, "cause", None), temporal.TerminatedError):
        return None
    newest = await client.get_workflow_handle(handle.id).describe()
    if newest.status == WorkflowExecutionStatus.TERMINATED or newest.run_id == handle.run_id:
        return None
    return client.get_workflow_handle(handle.id, run_id=newest.run_id, result_type=result_type)


def start_lazy_run(
    out: Session,
    *,
    workflow: str,
    run_id: str,
    agent: str,
    inputs: tuple[Session, ...],
    make_input: Callable[[], Any],
    static_summary: str,
    settings: Settings,
    on_budget_exceeded: BudgetCallback | None = None,
    on_started: Callable[[], None] | None = None,
    task_queue: str | Callable[[], str | None] | None = None,
    progress: bool = True,
    static_details: str | None = None,
    serve_local: bool = False,
) -> RunHandle:
    """Start ``workflow`` once ``inputs`` are ready and make ``out`` its lazy result."""
    runtime = get_runtime(settings)
    waits = tuple(s.ready for s in inputs if s.pending)
    future = runtime.submit(
        run_workflow(
            runtime,
            workflow=workflow,
            workflow_id=run_id,
            make_input=make_input,
            result_type=Session,
            wait_for=waits,
            static_summary=static_summary,
            search_attributes=(
                search_attributes(out.id, out.id, agent) if settings.search_attributes else None
            ),
            on_budget_exceeded=on_budget_exceeded,
            on_started=on_started,
            task_queue=task_queue,
            static_details=static_details,
            serve_local=serve_local,
        )
    )
    runtime.track(run_id, future)
    shown = runtime if progress else None
    handle = RunHandle(run_id, future, workflow=workflow, runtime=shown)
    out.attach_pending(handle)
    record_session(out, agent=agent, inputs=inputs)
    hold(out)
    return handle


def start_loop(call: LoopCall) -> None:
    """Start ``call`` as a top-level ``rath.SessionLoop`` run; ``call.out`` becomes its result."""
    settings = Settings.from_env()
    spec = provider_spec(call.provider, settings)
    gate = None if call.budget is None else BudgetGate(own=call.budget)
    streaming = call.on_event is not None
    # Resolved once the server has the run: a run that never started has nothing to follow.
    started: concurrent.futures.Future[None] = concurrent.futures.Future()
    executor = _local_executor(call.executor, settings)

    def make_input() -> SessionLoopInput:
        return call.input(spec, gate, stream=streaming, executor=executor)

    handle = start_lazy_run(
        call.out,
        workflow=SESSION_LOOP.name,
        run_id=call.run_id,
        agent=call.name,
        inputs=(call.user, call.agent),
        make_input=make_input,
        static_summary=call.summary(spec),
        static_details=call.details(spec),
        settings=settings,
        # With a callback, a run stopped over budget is a result: the callback sees it on read.
        on_budget_exceeded=_keep_partial if call.provider.on_budget_exceeded else None,
        on_started=(lambda: started.set_result(None)) if streaming else None,
        progress=not streaming,
        serve_local=executor is not None,
        task_queue=lambda: owner_queue(get_runtime(settings), call.user.sandbox),
    )
    handle.on_read = lambda out: budget_crossed(out, call.provider)
    if executor is not None:
        handle.add_done_callback(lambda _: EXECUTORS.discard(executor.id))
    if call.on_event is not None:
        follow_started_run(call.out, call.on_event, started)


def owner_queue(runtime: Runtime, placement: Placement | None) -> str | None:
    """This process's own queue, when its worker owns (or will open) the run's sandbox."""
    affinity = runtime.settings.affinity_queue
    if placement is None or not runtime.serves(affinity):
        return None
    return affinity if placement.owner in (None, affinity) else None


def start_compress(job: CompressJob) -> None:
    """Start ``job`` as a ``rath.Compress`` run; ``job.out`` becomes its result."""
    settings = Settings.from_env()
    spec = provider_spec(job.provider, settings)
    executor = _local_executor(job.executor, settings)
    handle = start_lazy_run(
        job.out,
        workflow=COMPRESS_RUN.name,
        run_id=compress_run_id(job),
        agent=slug(job.name),
        inputs=job.inputs,
        make_input=lambda: CompressInput(
            args=compress_args(job, spec, executor), output=compress_shell(job)
        ),
        static_summary=compress_summary(job, spec),
        static_details=compress_details(job, spec),
        settings=settings,
        serve_local=executor is not None,
    )
    if executor is not None:
        handle.add_done_callback(lambda _: EXECUTORS.discard(executor.id))


def _local_executor(executor: object | None, settings: Settings) -> ExecutorRef | None:
    """Keep a run's loop executor in this process; where its calls are sent."""
    if executor is None:
        return None
    return ExecutorRef(id=EXECUTORS.add(executor), queue=get_runtime(settings).local_queue)


def attach_run(out: Session, run_id: str, *, workflow: str) -> None:
    """Make ``out`` the lazy result of the existing run ``run_id`` (any process started it)."""
    runtime = get_runtime()

    async def wait() -> Session:
        client = await runtime.client()
        handle = client.get_workflow_handle(run_id, result_type=Session)
        return await run_result(client, handle, Session, outage=runtime.settings.outage_seconds)

    out.attach_pending(
        RunHandle(run_id, runtime.submit(wait()), workflow=workflow, runtime=runtime)
    )


_UNREACHABLE = frozenset(
    {RPCStatusCode.UNAVAILABLE, RPCStatusCode.DEADLINE_EXCEEDED, RPCStatusCode.UNKNOWN}
)
_FIRST_DELAY, _MAX_DELAY = 0.5, 10.0


async def _outliving_outages(handle: WorkflowHandle[Any, T], workflow_id: str, outage: float) -> T:
    """``handle.result()``, asked again (by workflow id) while the server cannot be reached."""
    down_since: float | None = None
    delay = _FIRST_DELAY
    while True:
        try:
            result: T = await handle.result()
            return result
        except RPCError as exc:
            if exc.status not in _UNREACHABLE:
                raise
            now = time.monotonic()
            down_since = down_since if down_since is not None else now
            if now - down_since > outage:
                raise RunUnreachableError(
                    f"Temporal stayed unreachable for {outage:g} s while waiting on run "
                    f"{workflow_id!r} ({exc.message}); the run may still be going: re-attach "
                    f"with rath.session.attach({workflow_id!r}) or `rath sessions follow "
                    f"{workflow_id}` once the server is back (RATH_CLIENT_OUTAGE_SECONDS)",
                    workflow_id=workflow_id,
                ) from None
            logger.warning("Temporal unreachable while waiting on %s; retrying", workflow_id)
            await asyncio.sleep(delay)  # backoff between reconnection attempts
            delay = min(delay * 2, _MAX_DELAY)


def _keep_partial(session: Any, usage: Any) -> None:
    """A run stopped over budget becomes its partial session (``budget_crossed`` calls back)."""


def budget_crossed(out: Session, provider: Any) -> None:
    """OpenRath's ``on_budget_exceeded(out, usage)``, with the caller's ``out`` once it is read."""
    cap = getattr(provider, "budget_total_tokens", None)
    stopped = "budget.exceeded" in dict(out.lineage_extras)
    crossed = cap is not None and out.usage is not None and out.usage.total_tokens > cap
    if not (stopped or crossed) or out.usage is None:
        return
    callback = getattr(provider, "on_budget_exceeded", None)
    if callback is None:
        logger.warning(
            "run %s used %d tokens, over budget_total_tokens=%d",
            out.run_id,
            out.usage.total_tokens,
            cap,
        )
        return
    callback(out, out.usage)
