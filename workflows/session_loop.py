"""``SessionLoopWorkflow``: OpenRath's agent loop as a durable workflow. See docs/modules.md."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.contrib.workflow_streams import WorkflowStream
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from rath.contracts.approvals import (
        APPROVE_UPDATE,
        PENDING_APPROVALS_QUERY,
        ApprovalDecision,
        PendingApproval,
    )
    from rath.contracts.budget import GRANT_SIGNAL, BudgetGrant, budget_exceeded
    from rath.contracts.catalog import ToolCatalog
    from rath.contracts.llm import COMPLETE, CompleteArgs, CompleteResult, CompressArgs
    from rath.contracts.runs import (
        SESSION_LOOP,
        LoopCarry,
        LoopOptions,
        LoopResult,
        SessionLoopInput,
    )
    from rath.llm.chat_response import add_usage
    from rath.session.graph import GraphNode, SessionGraph
    from rath.session.graph.kind import LineageKind
    from rath.session.placement import Placement
    from rath.session.session import Session
    from rath.session.table_ref import TableRef
    from rath.utils.text import preview
    from rath.workflows._approvals import Approvals
    from rath.workflows._cancel import cancelled_line, stopping
    from rath.workflows._catalog import record_failure, record_session
    from rath.workflows._executor_calls import executor_gone, never_taken
    from rath.workflows._memory_calls import commit_memories, inject_memories
    from rath.workflows._round_progress import RoundProgress
    from rath.workflows._stream_handoff import (
        continue_as_new_streaming,
        release_followers,
        restored,
    )
    from rath.workflows._tool_catalog import resolve_catalog
    from rath.workflows._tool_dispatch import Round, claim_sandbox, dispatch_round, error_row
    from rath.workflows._tree_budget import RunBudget
    from rath.workflows._versions import has_change
    from rath.workflows.compress import execute_compress

SUMMARY_LIMIT = 380
_DONE = "done"
AFFINITY = "rath-sandbox-affinity"
NO_COMPRESS_WHEN_SPENT = "rath-no-compress-when-spent"
_TRUNCATED = "truncated"


@workflow.defn(name=SESSION_LOOP.name, sandboxed=False)
class SessionLoopWorkflow:
    """One agent pass over a user session: rounds of LLM calls and tool calls."""

    @workflow.init
    def __init__(self, input: SessionLoopInput) -> None:
        self.code_version = input.code_version  # rath.workflows._versions
        self._carry: LoopCarry | None = None
        self._graph = SessionGraph()
        self._budget = RunBudget(None)
        self._approvals = Approvals()
        self._last_reply = ""
        self._rows: int | None = None
        self._progress: RoundProgress | None = None  # the tool calls of the round running
        # Only a streaming run hosts a stream (its handlers), so other runs' histories are
        # unchanged. WorkflowStream must be built right here, in the workflow's __init__.
        self._stream = (
            WorkflowStream(restored(input.stream_state)) if input.stream is not None else None
        )

    @workflow.query(name=PENDING_APPROVALS_QUERY)
    def pending_approvals(self) -> list[PendingApproval]:
        """Tool calls waiting for a person to approve or deny them."""
        return list(self._approvals.pending.values())

    @workflow.update(name=APPROVE_UPDATE)
    def approve(self, decision: ApprovalDecision) -> str:
        """Approve or deny a waiting tool call (``rath.approve``/``rath.deny``, or the CLI)."""
        self._approvals.answer(decision)
        return "approved" if decision.approve else "denied"

    @approve.validator
    def _check_approval(self, decision: ApprovalDecision) -> None:
        self._approvals.check(decision)

    @workflow.query
    def progress(self) -> LoopCarry | None:
        """The transcript so far (by reference), rounds used and usage."""
        return self._carry

    @workflow.query
    def graph(self) -> SessionGraph:
        """The run's sessions: the user and agent inputs, and the output once it exists."""
        return self._graph

    @workflow.signal(name=GRANT_SIGNAL)
    def budget_grant(self, grant: BudgetGrant) -> None:
        """The parent run's answer to this run's budget ask."""
        self._budget.grants[grant.seq] = grant

    @workflow.run
    async def run(self, input: SessionLoopInput) -> Session:
        """Run rounds until a completion without tool calls, ``max_tool_rounds`` or the budget."""
        try:
            out = await self._run(input)
        except BaseException as exc:
            if stopping(exc):
                await self._record_cancelled(input)
            elif isinstance(exc, Exception):  # not continue-as-new, nor an eviction
                error = await record_failure(exc, **self._record(input))
                workflow.set_current_details(f"**{input.agent_name}** · failed: {error}")
            raise
        finally:
            if self._stream is not None:
                await release_followers(self._stream)
        tokens = out.usage.total_tokens if out.usage is not None else 0
        workflow.set_current_details(
            f"**{input.agent_name}** · done · {tokens} tokens · output session {out.id}  \n"
            f"last reply: {preview(self._last_reply, 300) or '(none)'}"
        )
        branched = "fork.at_round" in dict(input.user.lineage_extras)
        await record_session(
            **self._record(input),
            status="completed",
            table=out.table,
            usage=out.usage,
            placement=out.sandbox,
            graph=self._graph if branched else None,  # a branch made in Python: no record
        )
        return LoopResult(**dict(out), last_reply=self._last_reply or None, rows=self._rows)

    async def _record_cancelled(self, input: SessionLoopInput) -> None:
        """Record the run as cancelled, keeping the transcript so far."""
        carry = self._carry
        transcript = carry.transcript if carry is not None else input.user.table
        progress = self._progress
        if progress is not None:
            transcript = transcript.append(*progress.closing_rows())
        line = cancelled_line(progress.report() if progress is not None else "")
        workflow.set_current_details(f"**{input.agent_name}** · {line}")
        await record_session(
            **self._record(input),
            status="cancelled",
            error=line,
            table=transcript,
            usage=carry.usage if carry is not None else None,
            placement=(carry.placement if carry is not None else None) or input.user.sandbox,
        )

    def _record(self, input: SessionLoopInput) -> dict[str, Any]:
        """The catalog fields every record of this run's output session has."""
        return {
            "session_id": input.output_id,
            "parents": (input.user.id, input.agent.id),
            "kind": LineageKind.OP_SESSION_LOOP.value,
            "operator": "run_session_loop",
            "agent": input.agent_name,
            "model": input.provider.label(),
            "closed": workflow.now(),
        }

    async def _run(self, input: SessionLoopInput) -> Session:
        self._graph = SessionGraph.from_sessions([input.user, input.agent])
        if input.budget is not None and input.carry is None:
            input = input.model_copy(update={"budget": input.budget.started(workflow.now())})
        self._budget = RunBudget(input.budget)
        carry = input.carry
        if carry is None:
            record = self._record(input) | {"closed": None}
            await record_session(**record, placement=input.user.sandbox)
            transcript = input.user.table
            if input.memory is not None:
                transcript = await inject_memories(input.memory, input.agent_name, transcript)
            catalog = await resolve_catalog(
                input.tools, placed=input.user.sandbox is not None, agent_name=input.agent_name
            )
            carry = LoopCarry(transcript=transcript, catalog=catalog)
        self._carry = carry
        carry, stop = await self._rounds(input, carry)
        extras: tuple[tuple[str, object], ...] = ()
        if stop == _TRUNCATED:
            workflow.logger.warning(
                "session loop stopped after max_tool_rounds=%d", input.options.max_tool_rounds
            )
            extras = (("loop.truncated", True),)
        if carry.compressions:
            extras += (("compression.auto", carry.compressions),)
        if input.memory is not None and stop in (_DONE, _TRUNCATED):
            committed = await commit_memories(
                input.memory,
                agent_name=input.agent_name,
                provider=input.provider,
                transcript=carry.transcript,
                session_id=str(input.output_id),
            )
            if committed is not None:
                carry = carry.model_copy(update={"usage": add_usage(carry.usage, committed.usage)})
                extras += (("memory.committed", committed.written),)
        if stop not in (_DONE, _TRUNCATED):
            extras += (("budget.exceeded", stop),)
        out = Session(
            id=input.output_id,
            table=carry.transcript,
            parent_session_ids=(input.user.id, input.agent.id),
            lineage_kind=LineageKind.OP_SESSION_LOOP,
            lineage_operator="run_session_loop",
            lineage_extras=extras,
            sandbox=carry.placement or input.user.sandbox,
            usage=carry.usage,
        )
        node = GraphNode.from_session(
            out, agent=input.agent_name, run_id=workflow.info().workflow_id
        )
        self._graph = SessionGraph(nodes=(*self._graph.nodes, node))
        if stop not in (_DONE, _TRUNCATED):
            raise budget_exceeded(f"agent {input.agent_name!r}", stop, out)
        return out

    async def _rounds(self, input: SessionLoopInput, carry: LoopCarry) -> tuple[LoopCarry, str]:
        """Run the rounds; return the final state and why they stopped."""
        options = input.options
        catalog = carry.catalog or ToolCatalog()
        rounds_this_run = 0
        while carry.rounds < options.max_tool_rounds:
            if rounds_this_run and self._should_continue_as_new(rounds_this_run, options):
                next_input = input.model_copy(
                    update={"carry": carry.model_copy(update={"runs": carry.runs + 1})}
                )
                if self._stream is not None:
                    await continue_as_new_streaming(self._stream, next_input)
                workflow.continue_as_new(next_input)
            rounds_this_run += 1
            round_no = carry.rounds + 1
            refused = await self._budget.before_llm_call(round_no, carry.spent())
            if refused is not None:
                return carry, refused
            result = await self._complete(input, carry.transcript, catalog, round_no)
            self._last_reply = result.reply or result.preview
            self._rows = result.rows
            transcript = TableRef.sealed(result.transcript).append(result.assistant)
            carry = carry.model_copy(
                update={
                    "transcript": transcript,
                    "rounds": round_no,
                    "usage": add_usage(carry.usage, result.usage),
                }
            )
            self._carry = carry
            if not result.tool_calls:
                # Any completion without tool calls ends the loop (OpenRath re-asked the model
                # on odd finish reasons, appending duplicate assistant rows).
                return carry, _DONE
            left = self._budget.tool_calls_left(carry.spent())
            if left is not None and len(result.tool_calls) > left:
                reason = f"tool_calls: {len(result.tool_calls)} asked, {left} left"
                refusals = [error_row(c, "budget_exceeded", reason) for c in result.tool_calls]
                carry = carry.model_copy(update={"transcript": transcript.append(*refusals)})
                self._grew(len(refusals))
                self._carry = carry
                return carry, reason
            placement = carry.placement or input.user.sandbox
            unclaimed = None
            # Runs recorded before sandbox affinity existed replay without the claim.
            if placement is not None and placement.owner is None and has_change(AFFINITY):
                claimed = await claim_sandbox(placement, input.agent_name)
                if isinstance(claimed, str):
                    unclaimed = claimed
                else:
                    placement = claimed
                    carry = carry.model_copy(update={"placement": placement})
            work = self._round(
                input,
                catalog=catalog,
                result=result,
                transcript=transcript,
                placement=placement,
                unclaimed=unclaimed,
            )
            self._progress = work.progress
            rows = await dispatch_round(work, result.tool_calls)
            carry = carry.model_copy(
                update={
                    "transcript": transcript.append(*rows),
                    "tool_calls": carry.tool_calls + len(result.tool_calls),
                }
            )
            self._carry, self._progress = carry, None
            self._grew(len(rows))
            limit = options.compress_at_tokens
            if limit is not None and result.context_tokens >= limit:
                # Compressing is an LLM call too: not once the budget is spent (the next
                # round is refused anyway, and the transcript so far must stay whole).
                # Runs recorded before this rule replay with the compression they made.
                spent_out = self._budget.spent_out(carry.spent())
                if not (spent_out and has_change(NO_COMPRESS_WHEN_SPENT)):
                    carry = await self._compress(input, carry, result.context_tokens)
            self._carry = carry
        return carry, _TRUNCATED

    def _grew(self, rows: int) -> None:
        """Count rows appended to the transcript (once the model's first answer told the size)."""
        if self._rows is not None:
            self._rows += rows

    def _should_continue_as_new(self, rounds_this_run: int, options: LoopOptions) -> bool:
        limit = options.continue_as_new_after_rounds
        if limit is not None and rounds_this_run >= limit:
            return True
        return workflow.info().is_continue_as_new_suggested()

    async def _complete(
        self, input: SessionLoopInput, transcript: TableRef, catalog: ToolCatalog, round_no: int
    ) -> CompleteResult:
        options = input.options
        workflow.set_current_details(
            f"**{input.agent_name}** · {input.provider.label()} · round {round_no}"
            f"/{options.max_tool_rounds}"
        )
        executor = input.executor
        wait = options.tool_worker_wait_seconds
        try:
            return await self._call_model(input, transcript, catalog, round_no)
        except ActivityError as exc:
            if executor is not None and never_taken(exc):
                raise executor_gone(executor, wait, "model call") from exc
            raise

    async def _call_model(
        self, input: SessionLoopInput, transcript: TableRef, catalog: ToolCatalog, round_no: int
    ) -> CompleteResult:
        options = input.options
        executor = input.executor
        return await COMPLETE.execute(
            CompleteArgs(
                agent_name=input.agent_name,
                provider=input.provider,
                system=input.agent.table,
                transcript=transcript,
                tool_names=catalog.builtins,
                tool_schemas=catalog.schemas,
                round=round_no,
                stream=input.stream,
                executor=input.executor,
            ),
            task_queue=executor.queue if executor is not None else None,
            # Only the executor's process polls its queue: not taken in time, it has ended.
            schedule_to_start_timeout=(
                timedelta(seconds=options.tool_worker_wait_seconds)
                if executor is not None
                else None
            ),
            start_to_close_timeout=timedelta(seconds=options.llm_timeout_seconds),
            heartbeat_timeout=timedelta(seconds=options.llm_heartbeat_seconds),
            retry_policy=RetryPolicy(
                initial_interval=timedelta(
                    seconds=input.provider.retry_base_seconds or options.llm_retry_base_seconds
                ),
                maximum_attempts=input.provider.retry_max_attempts or options.llm_max_attempts,
                non_retryable_error_types=["ConfigError"],
            ),
            summary=preview(
                f"{input.agent_name} · {input.provider.label()} · round {round_no}", SUMMARY_LIMIT
            ),
        )

    async def _compress(self, input: SessionLoopInput, carry: LoopCarry, tokens: int) -> LoopCarry:
        """Replace the transcript with one summary row (the agent's prompt guides it)."""
        workflow.set_current_details(
            f"**{input.agent_name}** · compressing ({tokens} tokens ≥ "
            f"{input.options.compress_at_tokens})"
        )
        result = await execute_compress(
            CompressArgs(
                agent_name=input.agent_name,
                provider=input.provider,
                system=input.agent.table,
                transcript=carry.transcript,
                instruction=input.options.compress_instruction,
                executor=input.executor,
            )
        )
        self._rows = 1
        return carry.model_copy(
            update={
                "transcript": TableRef(rows=(result.row,)),
                "usage": add_usage(carry.usage, result.usage),
                "compressions": carry.compressions + 1,
            }
        )

    def _round(
        self,
        input: SessionLoopInput,
        *,
        catalog: ToolCatalog,
        result: CompleteResult,
        transcript: TableRef,
        placement: Placement | None,
        unclaimed: str | None,
    ) -> Round:
        options = input.options
        return Round(
            agent_name=input.agent_name,
            placement=placement,
            unclaimed=unclaimed,
            catalog=catalog,
            policy=input.tools.policy if input.tools is not None else None,
            approvals=self._approvals,
            assistant=result.assistant,
            transcript=transcript,
            timeout_seconds=options.tool_timeout_seconds,
            heartbeat_seconds=options.tool_heartbeat_seconds,
            max_attempts=options.tool_max_attempts,
            owner_wait_seconds=options.sandbox_owner_wait_seconds,
            tool_wait_seconds=options.tool_worker_wait_seconds,
            executor=input.executor,
            progress=RoundProgress(result.tool_calls),
        )
