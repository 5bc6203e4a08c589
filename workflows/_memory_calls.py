"""The loop's memory calls in workflow code: inject first, commit after. See docs/modules.md."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from rath.contracts.memory import (
        COMMIT_MEMORIES,
        INJECT_MEMORIES,
        AgentMemory,
        CommitArgs,
        CommitResult,
        InjectArgs,
    )
    from rath.llm.provider import ProviderSpec
    from rath.session.table_ref import TableRef
    from rath.workflows._cancel import reraise_if_stopping

INJECT_TIMEOUT = timedelta(seconds=60)
COMMIT_TIMEOUT = timedelta(minutes=10)


async def inject_memories(memory: AgentMemory, agent_name: str, transcript: TableRef) -> TableRef:
    """``transcript`` with the relevant memories it does not hold yet, as marked SYSTEM rows."""
    try:
        result = await INJECT_MEMORIES.execute(
            InjectArgs(
                memory=memory.spec, transcript=transcript, top_k=memory.top_k, target=memory.target
            ),
            start_to_close_timeout=INJECT_TIMEOUT,
            heartbeat_timeout=timedelta(seconds=20),
            retry_policy=RetryPolicy(maximum_attempts=3),
            summary=f"{agent_name} · recall memories",
        )
    except ActivityError as exc:
        reraise_if_stopping(exc)
        workflow.logger.warning("memory injection failed; going on without: %s", exc.cause or exc)
        return transcript
    return transcript.append(*result.rows) if result.rows else transcript


async def commit_memories(
    memory: AgentMemory,
    *,
    agent_name: str,
    provider: ProviderSpec,
    transcript: TableRef,
    session_id: str,
) -> CommitResult | None:
    """Store the durable facts of ``transcript``; ``None`` when skipped or failed."""
    if not memory.commit_on_forward:
        return None
    if provider.kind == "demo":
        workflow.logger.warning("commit_on_forward skipped: the offline demo model cannot")
        return None
    try:
        result = await COMMIT_MEMORIES.execute(
            CommitArgs(
                memory=memory.spec,
                transcript=transcript,
                provider=provider,
                agent_name=agent_name,
                session_id=session_id,
            ),
            start_to_close_timeout=COMMIT_TIMEOUT,
            heartbeat_timeout=timedelta(seconds=30),
            retry_policy=RetryPolicy(
                maximum_attempts=provider.retry_max_attempts or 6,
                non_retryable_error_types=["ConfigError", "CompressError", "ExtractionError"],
            ),
            summary=f"{agent_name} · commit memories",
        )
    except ActivityError as exc:
        reraise_if_stopping(exc)
        workflow.logger.warning("memory commit failed; going on without: %s", exc.cause or exc)
        return None
    return result
