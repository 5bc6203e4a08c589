"""A round's tool calls in workflow code: lanes, routes, policy, approvals. See docs/modules.md."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from rath.contracts import ActivityContract
    from rath.contracts.catalog import ToolCatalog, ToolPolicy
    from rath.contracts.llm import ExecutorRef, ToolCallPlan
    from rath.contracts.mcp import CALL_MCP_TOOL, McpCallArgs
    from rath.contracts.queues import base_queue, tool_queue
    from rath.contracts.tools import (
        CLAIM_SANDBOX,
        RUN_CUSTOM_TOOL,
        RUN_EXECUTOR_TOOL,
        RUN_TOOL,
        ClaimArgs,
        CustomToolArgs,
        ExecutorToolArgs,
        RunToolArgs,
        RunToolResult,
    )
    from rath.session.chunk import ChunkRow, tool_feedback_chunk
    from rath.session.placement import Placement
    from rath.session.table_ref import TableRef
    from rath.store.call_journal import call_key
    from rath.tools.bodies import error_body
    from rath.tools.builtins import BUILTIN_TOOLS
    from rath.utils.text import preview
    from rath.workflows._approvals import Approvals
    from rath.workflows._cancel import reraise_if_stopping, stopping
    from rath.workflows._executor_calls import executor_gone, never_taken
    from rath.workflows._round_progress import RoundProgress

SUMMARY_LIMIT = 380
CLAIM_TIMEOUT = timedelta(seconds=120)
Row = str | ChunkRow
ToolActivity = ActivityContract[Any, RunToolResult]
"""Where a tool call runs: ``rath.tools.run``, ``rath.tools.custom`` or ``rath.mcp.call_tool``."""


@dataclass(frozen=True)
class Round:
    """What a round's tool calls need to know."""

    agent_name: str
    placement: Placement | None
    catalog: ToolCatalog
    policy: ToolPolicy | None
    approvals: Approvals
    assistant: str
    transcript: TableRef
    timeout_seconds: float
    heartbeat_seconds: float
    max_attempts: int
    owner_wait_seconds: float = 600.0
    tool_wait_seconds: float = 600.0
    unclaimed: str | None = None
    """Why the session's sandbox could not be opened (its calls then fail with this)."""
    executor: ExecutorRef | None = None
    """The caller's loop executor, which dispatches the calls of its process's tools."""
    progress: RoundProgress | None = None
    """Where the calls' results and a cancel's catch are kept (``None``: not kept)."""

    @property
    def queue(self) -> str | None:
        """Where tool calls go: the sandbox owner's queue (``None``: the shared one)."""
        return self.placement.owner if self.placement is not None else None


async def claim_sandbox(placement: Placement, agent_name: str) -> Placement | str:
    """``placement`` owned by the worker that opened it, or why it could not be opened."""
    try:
        claimed = await CLAIM_SANDBOX.execute(
            ClaimArgs(placement=placement),
            start_to_close_timeout=CLAIM_TIMEOUT,
            retry_policy=RetryPolicy(maximum_attempts=3, non_retryable_error_types=["ConfigError"]),
            summary=f"{agent_name} · open sandbox {placement.describe()}",
        )
    except ActivityError as exc:
        reraise_if_stopping(exc)
        cause = exc.cause or exc
        return f"{type(cause).__name__}: {cause}"
    return placement.model_copy(update={"owner": claimed.owner})


async def dispatch_round(round: Round, calls: tuple[ToolCallPlan, ...]) -> list[Row]:
    """Run ``calls``; their result rows in call order."""
    progress = round.progress if round.progress is not None else RoundProgress(calls)
    rows = progress.rows
    lanes: dict[tuple[str, ...], list[ToolCallPlan]] = {}
    available = round.catalog.names()
    for call in calls:
        if call.name not in available:
            rows[call.index] = error_row(call, "unknown_tool", _unknown(round, call, available))
        elif call.arguments_error is not None:
            rows[call.index] = error_row(call, "invalid_tool_arguments", call.arguments_error)
        elif round.unclaimed is not None:
            rows[call.index] = error_row(call, "tool_execution_exception", round.unclaimed)
        else:
            lanes.setdefault(_lane(round.catalog, call), []).append(call)

    async def run_lane(lane: list[ToolCallPlan]) -> None:
        for call in lane:
            rows[call.index] = await _run(round, call)

    await asyncio.gather(*(run_lane(lane) for lane in lanes.values()))
    return [rows[call.index] for call in calls]


def error_row(call: ToolCallPlan, kind: str, message: str) -> ChunkRow:
    """A TOOL_RESULT row telling the model why its call did not run."""
    return tool_feedback_chunk(call.id, call.name, error_body(kind, message))


def _unknown(round: Round, call: ToolCallPlan, available: tuple[str, ...]) -> str:
    if round.placement is None and call.name in BUILTIN_TOOLS:
        return (
            f"tool {call.name!r} needs a sandbox; place the session with "
            "session.to('local', spec=...)"
        )
    return f"unknown tool {call.name!r}; available: {', '.join(available) or 'none'}"


def _lane(catalog: ToolCatalog, call: ToolCallPlan) -> tuple[str, ...]:
    binding = catalog.mcp.get(call.name)
    if binding is not None:
        return binding.resource_key(call.id)
    spec = catalog.custom.get(call.name)
    if spec is not None and call.resource_key[:1] == ("call",):
        # The LLM activity's worker did not know the tool: use its declared default.
        return ("safe", spec.name) if spec.parallel_safe else ("global",)
    return call.resource_key


async def _run(round: Round, call: ToolCallPlan) -> Row:
    try:
        refusal = await _refusal(round, call)
    except asyncio.CancelledError:
        if round.progress is not None:
            round.progress.asking.add(call.index)
        raise
    if refusal is not None:
        return refusal
    workflow.set_current_details(f"**{round.agent_name}** · tool `{call.name}`")
    contract, args, summary = _activity(round, call)
    owned = contract is RUN_TOOL and round.queue is not None
    custom = contract is RUN_CUSTOM_TOOL
    queue = round.queue
    executor = round.executor if contract is RUN_EXECUTOR_TOOL else None
    if executor is not None:
        queue = executor.queue
    elif custom:  # only workers that registered the tool poll its queue (the owner's, if placed)
        queue = tool_queue(round.queue or base_queue(workflow.info().task_queue), call.name)
    # Only the owner (or a worker with the tool) can run it: bound the wait, so a run whose
    # owner is gone fails instead of waiting forever.
    wait = (
        round.owner_wait_seconds
        if owned
        else round.tool_wait_seconds
        if custom or executor is not None
        else None
    )
    try:
        done = await contract.execute(
            args,
            task_queue=queue,
            schedule_to_start_timeout=timedelta(seconds=wait) if wait is not None else None,
            start_to_close_timeout=timedelta(seconds=round.timeout_seconds),
            heartbeat_timeout=timedelta(seconds=round.heartbeat_seconds),
            retry_policy=RetryPolicy(
                maximum_attempts=round.max_attempts,
                non_retryable_error_types=["ConfigError", "ToolNotRegistered"],
            ),
            summary=preview(summary, SUMMARY_LIMIT),
        )
    except ActivityError as exc:
        if stopping(exc):
            if round.progress is not None:
                round.progress.cut[call.index] = _key_of(exc.activity_id)
            raise
        cause = exc.cause or exc
        if isinstance(cause, ApplicationError) and cause.type == "ToolNotRegistered":
            raise ApplicationError(cause.message, type=cause.type, non_retryable=True) from exc
        taken = not never_taken(exc)
        if executor is not None and not taken:
            raise executor_gone(executor, round.tool_wait_seconds, "tool call") from exc
        if custom and not taken:
            raise ApplicationError(
                f"no worker took the call of tool {call.name!r} (agent {round.agent_name!r}) "
                f"from its task queue {queue!r} within {wait:g} s: only workers that "
                "registered the tool poll it"
                + (" (here: the worker that owns this session's sandbox)" if round.queue else "")
                + f". Start one with `rath worker --tools package.module:{call.name}`, or run "
                "the agent from a script that defines the tool",
                type="ToolNotRegistered",
                non_retryable=True,
            ) from exc
        if owned and not taken:
            raise ApplicationError(
                f"no worker took the tool call from {round.queue!r}, the task queue of the "
                f"worker that owns this session's sandbox, within {round.owner_wait_seconds:g} "
                "s: that worker is gone or far behind. Restart it with the same "
                "RATH_WORKER_ID (its workspace lives on its host)",
                type="SandboxOwnerUnavailable",
                non_retryable=True,
            ) from exc
        return error_row(call, "tool_execution_exception", f"{type(cause).__name__}: {cause}")
    return done.result


def _key_of(activity_id: str) -> str:
    """The idempotency key the activity ``activity_id`` of this run gives its tool call."""
    info = workflow.info()
    return call_key(info.workflow_id, _origin_run_id(), activity_id)


def _origin_run_id() -> str:
    """The run whose history this one started from: the same run unless it was reset."""
    info = workflow.info()
    return info.original_execution_run_id or info.run_id


def _reset_origin() -> str | None:
    """The original run's id when this run is a reset one (else ``None``: the run's own)."""
    origin = _origin_run_id()
    return origin if origin != workflow.info().run_id else None


def _activity(round: Round, call: ToolCallPlan) -> tuple[ToolActivity, Any, str]:
    """The activity that runs ``call``, its input, and its summary for the UI."""
    who = f"{round.agent_name} · {call.name} {call.preview}"
    binding = round.catalog.mcp.get(call.name)
    if binding is not None:
        args: Any = McpCallArgs(
            server=binding.server,
            assistant=round.assistant,
            call_index=call.index,
            tool_name=binding.tool,
            origin_run_id=_reset_origin(),
        )
        return (
            CALL_MCP_TOOL,
            args,
            f"{round.agent_name} · mcp {binding.server.label()} · {binding.tool} {call.preview}",
        )
    custom = CustomToolArgs(
        agent_name=round.agent_name,
        tool_name=call.name,
        assistant=round.assistant,
        call_index=call.index,
        transcript=round.transcript,
        placement=round.placement,
        origin_run_id=_reset_origin(),
    )
    if round.executor is not None:
        args = ExecutorToolArgs(**dict(custom), executor=round.executor)
        return RUN_EXECUTOR_TOOL, args, f"{who} (via the loop executor)"
    if call.name in round.catalog.custom:
        return RUN_CUSTOM_TOOL, custom, who
    assert round.placement is not None
    args = RunToolArgs(
        agent_name=round.agent_name,
        placement=round.placement,
        assistant=round.assistant,
        call_index=call.index,
        origin_run_id=_reset_origin(),
    )
    return RUN_TOOL, args, who


async def _refusal(round: Round, call: ToolCallPlan) -> ChunkRow | None:
    """The error row for a call the policy or a person refuses; ``None`` to run it."""
    policy = round.policy
    decision = policy.decide(call.name) if policy is not None else "allow"
    if decision == "allow":
        return None
    if decision == "deny":
        return error_row(call, "denied_by_policy", f"the agent's tool policy denies {call.name!r}")
    assert policy is not None
    workflow.set_current_details(
        f"**{round.agent_name}** · waiting for approval of `{call.name} {call.preview}` "
        f"(call `{call.id}`): `rath approve {workflow.info().workflow_id} {call.id}`"
    )
    answer = await round.approvals.ask(
        call.id, call.name, call.preview, round.agent_name, policy.timeout_seconds
    )
    if answer is None:
        return error_row(
            call,
            "approval_timeout",
            f"no one approved {call.name!r} within {policy.timeout_seconds:g}s; it did not run",
        )
    if not answer.approve:
        why = f": {answer.reason}" if answer.reason else ""
        return error_row(call, "denied", f"a person denied this call of {call.name!r}{why}")
    return None
