"""The agent loop's memory steps, as workflow code: inject before the first round, commit after.

Both are activities (``rath.memory.inject``, ``rath.memory.commit``) and both are advisory, as
in OpenRath: if one fails after its retries the run goes on without it, with a warning.
"""

from __future__ import annotations

from datetime import timedelta

from pydantic import BaseModel, ConfigDict
from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from rath.activities.memory import CommitArgs, InjectArgs, InjectResult
    from rath.llm._provider import ProviderSpec
    from rath.memory import MemorySpec
    from rath.memory._commit import CommitResult
    from rath.session._table_ref import TableRef

INJECT_TIMEOUT = timedelta(seconds=60)
COMMIT_TIMEOUT = timedelta(minutes=10)


class AgentMemory(BaseModel):
    """How an agent run uses memory (``Agent(memory=...)``), as workflow input.

    Attributes:
        spec: Which store.
        top_k: The most memories injected before the first round.
        target: Recall only from this scope or URI prefix (``None``: everywhere).
        commit_on_forward: After the run, extract durable facts from its transcript and store
            them (one LLM call; skipped for the offline demo model, which cannot).
    """

    model_config = ConfigDict(frozen=True)

    spec: MemorySpec
    top_k: int = 4
    target: str | None = None
    commit_on_forward: bool = False


async def inject_memories(memory: AgentMemory, agent_name: str, transcript: TableRef) -> TableRef:
    """``transcript`` with the relevant memories it does not hold yet, as marked SYSTEM rows."""
    try:
        result: InjectResult = await workflow.execute_activity(
            "rath.memory.inject",
            InjectArgs(
                memory=memory.spec, transcript=transcript, top_k=memory.top_k, target=memory.target
            ),
            result_type=InjectResult,
            start_to_close_timeout=INJECT_TIMEOUT,
            heartbeat_timeout=timedelta(seconds=20),
            retry_policy=RetryPolicy(maximum_attempts=3),
            summary=f"{agent_name} · recall memories",
        )
    except ActivityError as exc:
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
        result: CommitResult = await workflow.execute_activity(
            "rath.memory.commit",
            CommitArgs(
                memory=memory.spec,
                transcript=transcript,
                provider=provider,
                agent_name=agent_name,
                session_id=session_id,
            ),
            result_type=CommitResult,
            start_to_close_timeout=COMMIT_TIMEOUT,
            heartbeat_timeout=timedelta(seconds=30),
            retry_policy=RetryPolicy(
                maximum_attempts=provider.retry_max_attempts or 6,
                non_retryable_error_types=["ConfigError", "CompressError"],
            ),
            summary=f"{agent_name} · commit memories",
        )
    except ActivityError as exc:
        workflow.logger.warning("memory commit failed; going on without: %s", exc.cause or exc)
        return None
    return result
