"""``ForwardWorkflow``: a user's ``Workflow.forward`` as durable code. See docs/modules.md."""

from __future__ import annotations

import inspect
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from rath.contracts.budget import (
        ASK_SIGNAL,
        GRANT_SIGNAL,
        BudgetAsk,
        BudgetGrant,
        budget_exceeded,
    )
    from rath.contracts.modules import decode_call, registered_targets, registered_workflow_class
    from rath.contracts.queues import code_of
    from rath.contracts.runs import FORWARD, ForwardInput
    from rath.errors import BudgetExceededError, UserError
    from rath.llm.chat_response import RathLLMTokenUsage
    from rath.session.graph import SessionGraph
    from rath.session.graph.kind import LineageKind
    from rath.session.session import Session
    from rath.utils.failures import describe_failure
    from rath.utils.text import preview
    from rath.workflows._cancel import cancelled_line, stopping
    from rath.workflows._catalog import record_failure, record_session
    from rath.workflows._run_tasks import FAIL_FAST_PATCH, RunTasks
    from rath.workflows._tree_budget import TreeKeeper
    from rath.workflows._versions import has_change
    from rath.workflows.scope import WorkflowScope, entered


@workflow.defn(name=FORWARD.name)
class ForwardWorkflow:
    """Runs one ``forward`` of a registered ``rath.flow.Workflow`` class."""

    def __init__(self) -> None:
        self._scope: WorkflowScope | None = None
        self.code_version = 0  # the input's, once run (rath.workflows._versions)

    @workflow.query
    def graph(self) -> SessionGraph:
        """Every session this run has made so far, with lineage, agent and child run ids."""
        return self._scope.graph() if self._scope is not None else SessionGraph()

    @workflow.query
    def usage(self) -> RathLLMTokenUsage | None:
        """Tokens used so far by every agent of the run."""
        return self._scope.usage if self._scope is not None else None

    @workflow.signal(name=ASK_SIGNAL)
    async def budget_ask(self, ask: BudgetAsk) -> None:
        """An agent of this run asks whether the tree's budget has room for an LLM call."""
        keeper = self._scope.keeper if self._scope is not None else None
        grant = keeper.answer(ask) if keeper is not None else BudgetGrant(seq=ask.seq)
        try:
            await workflow.get_external_workflow_handle(ask.child_id).signal(GRANT_SIGNAL, grant)
        except Exception as exc:
            # The agent ended meanwhile (it stopped waiting, or was cancelled): nobody to tell.
            # Raised from a signal handler, this would fail the whole run.
            workflow.logger.warning("budget grant for %s not delivered: %s", ask.child_id, exc)

    @workflow.run
    async def run(self, input: ForwardInput) -> Session:
        """Rebuild the module, run ``forward``, wait for every agent it started."""
        self.code_version = input.code_version
        try:
            out = await self._run(input)
        except BaseException as exc:
            scope = self._scope
            if scope is None:  # the class was not found: the run never started
                raise
            if stopping(exc):
                stopped = await self._stop(f"{self._who()} was cancelled", scope)
                await record_session(
                    **self._record(input), status="cancelled", error=cancelled_line(stopped)
                )
            elif isinstance(exc, Exception):  # not an eviction
                if scope.tasks.fail_fast:
                    why = preview(describe_failure(exc), 200)
                    await self._stop(f"{self._who()} failed: {why}", scope)
                await record_failure(exc, **self._record(input))
            raise
        await record_session(
            **self._record(input) | {"parents": out.parent_session_ids},
            status="completed",
            table=out.table,
            usage=out.usage,
            placement=out.sandbox,
            graph=self.graph(),
        )
        return out

    @staticmethod
    def _who() -> str:
        return f"its forward run {workflow.info().workflow_id!r}"

    @staticmethod
    async def _stop(reason: str, scope: WorkflowScope) -> str:
        """Stop the tasks still running (agents get a cancel with ``reason``); what it did."""
        stopped, left = await scope.tasks.stop(reason)
        started = set(scope.old_children.started)
        ran = [name for name in stopped if name in scope.runs and name in started]
        never = [name for name in stopped if name in scope.runs and name not in started]
        parts = [f"stopped {len(ran)} agent run(s): {', '.join(ran)}"] if ran else []
        if never:
            parts.append(f"{len(never)} never started: {', '.join(never)}")
        still = [name for name in left if name in ran]
        if still:
            parts.append(f"{len(still)} still closing: {', '.join(still)}")
        return "; ".join(parts)

    def _record(self, input: ForwardInput) -> dict[str, Any]:
        """The catalog fields every record of this run's output session has."""
        return {
            "session_id": input.output_id,
            "parents": (input.session.id,),
            "kind": LineageKind.OP_WORKFLOW.value,
            "operator": f"{input.module.class_name}.forward",
            "agent": input.module.class_name,
            "closed": workflow.now(),
        }

    async def _run(self, input: ForwardInput) -> Session:
        spec = input.module
        cls = registered_workflow_class(spec.target)
        if cls is None:
            queue = workflow.info().task_queue
            message = (
                f"workflow class {spec.target!r} is not registered on the worker of task queue "
                f"{queue!r} (registered: {', '.join(registered_targets()) or 'none'}); start "
                f"the worker with `rath worker --workflows package.module:{spec.class_name}`"
            )
            if code_of(queue) == ("workflow", spec.class_name):
                # A same-named class from another module: fail this task only, so a worker
                # that has the right class takes the run instead of it failing here.
                raise RuntimeError(message)
            raise UserError(message)
        scope = self._scope = WorkflowScope(
            root_session_id=input.output_id,
            use_search_attributes=input.search_attributes,
            demo_fallback=input.demo_fallback,
            keeper=None if input.budget is None else TreeKeeper(input.budget, workflow.now()),
            tasks=RunTasks(fail_fast=has_change(FAIL_FAST_PATCH)),
        )
        scope.record(input.session)
        await record_session(
            **self._record(input) | {"closed": None}, placement=input.session.sandbox
        )
        name = spec.class_name
        with entered(scope):
            try:
                init_args, init_kwargs = decode_call(spec.init_args, spec.init_kwargs)
                module = cls(*init_args, **init_kwargs)
                call_args, call_kwargs = decode_call(input.call_args, input.call_kwargs)
                result = module.forward(input.session, *call_args, **call_kwargs)
                if inspect.isawaitable(result) and not isinstance(result, Session):
                    result = await result  # an async forward (a Session is awaitable too)
                if not isinstance(result, Session):
                    raise UserError(
                        f"{name}.forward must return a Session, not {type(result).__name__}"
                    )
                await result.ready()
                await scope.drain()
            except UserError:
                raise
            except BudgetExceededError as exc:
                await scope.settle()
                partial = exc.session if isinstance(exc.session, Session) else input.session
                raise budget_exceeded(
                    f"{name}.forward", exc.reason, self._output(input, partial, exc.reason)
                ) from exc
            except Exception as exc:
                if stopping(exc):  # the run's own cancel, seen in an activity forward awaited
                    raise
                # Anything forward raises fails the run with its message (a user's bug must
                # not leave the workflow task retrying forever).
                raise ApplicationError(
                    f"{name}.forward failed: {type(exc).__name__}: {exc}",
                    type=type(exc).__name__,
                    non_retryable=True,
                ) from exc
        await workflow.wait_condition(workflow.all_handlers_finished)
        return self._output(input, result)

    def _output(self, input: ForwardInput, result: Session, exceeded: str | None = None) -> Session:
        """The run's output node: ``result``'s rows, the tree's usage (recorded in the graph)."""
        assert self._scope is not None
        out = Session(
            id=input.output_id,
            table=result.table,
            parent_session_ids=(input.session.id, result.id),
            lineage_kind=LineageKind.OP_WORKFLOW,
            lineage_operator=f"{input.module.class_name}.forward",
            lineage_extras=() if exceeded is None else (("budget.exceeded", exceeded),),
            sandbox=result.sandbox,
            usage=self._scope.usage,
        )
        self._scope.record(out, agent=input.module.class_name, run_id=workflow.info().workflow_id)
        return out
