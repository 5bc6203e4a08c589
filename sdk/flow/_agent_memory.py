"""An Agent's memory methods: direct store calls from plain Python, activities in a forward."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from datetime import timedelta
from typing import Any

from temporalio import workflow

from rath.errors import ConfigError
from rath.flow._param import AgentParam
from rath.memory import MemorySpec, MemoryStore, memory_spec
from rath.session._session import Session


class AgentMemoryMethods:
    """``remember_memory``, ``recall_memory`` and ``commit_memory`` (OpenRath's names).

    From plain Python they run here, against the store, and return their results. Inside a
    durable ``forward`` they are activities of the run (retried; a retried write or commit
    does not duplicate) and return a task to ``await``.
    """

    agent: AgentParam
    _memory_spec: MemorySpec | None
    _memory_store: MemoryStore | None

    def _bind_memory(self, memory: object) -> None:
        self._memory_store = memory if isinstance(memory, MemoryStore) else None
        self._memory_spec = memory_spec(memory)

    @property
    def memory(self) -> MemorySpec | None:
        """The agent's store, described (``None`` without memory)."""
        return self._memory_spec

    def remember_memory(self, content: str, **fields: Any) -> Any:
        """Store ``content`` (``scope``, ``category``, ``key``, ``session_id`` as keywords).

        Returns:
            The :class:`~rath.memory.MemoryRecord`, or in a forward a task resolving to it.
        """
        spec = self._require_memory()
        if workflow.in_workflow():
            from rath.activities.memory import RememberArgs

            args = RememberArgs(content=content, memory=spec, **fields)
            return _in_forward(_remembered(args))
        from rath.memory import remember

        return remember(self._memory_store or spec, content, **fields)

    def recall_memory(self, query: str, *, top_k: int = 4, target: str | None = None) -> Any:
        """The memories most relevant to ``query``, best first (never a zero score).

        Returns:
            A list of :class:`~rath.memory.MemoryHit`, or in a forward a task resolving to it.
        """
        spec = self._require_memory()
        if workflow.in_workflow():
            from rath.activities.memory import RecallArgs

            args = RecallArgs(query=query, memory=spec, top_k=top_k, target=target)
            return _in_forward(_recalled(args))
        from rath.memory import recall

        return recall(self._memory_store or spec, query, top_k=top_k, target=target)

    def commit_memory(self, session: Session) -> Any:
        """Extract durable facts from ``session`` with the agent's model and store them.

        Returns:
            A :class:`~rath.memory.CommitResult`, or in a forward a task resolving to it.
        """
        spec = self._require_memory()
        if workflow.in_workflow():
            return _in_forward(_committed(self, spec, session))
        from rath.memory import commit

        rows = session.chunk_table.rows
        store = self._memory_store or spec
        return commit(store, rows, self.agent.provider, session_id=str(session.id))

    def _require_memory(self) -> MemorySpec:
        if self._memory_spec is None:
            raise ConfigError(
                "this agent has no memory: create it with Agent(..., memory='local') "
                "(or a MemorySpec, or a memory store)"
            )
        return self._memory_spec


def _in_forward(coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
    """Run ``coro`` as a task of the durable forward (the run waits for it)."""
    from rath._runtime.scope import current_scope

    scope = current_scope()
    task = asyncio.get_running_loop().create_task(coro)
    scope.tasks.append(task)
    return task


async def _activity(
    name: str, args: Any, result_type: type[Any], summary: str, timeout: float = 60.0
) -> Any:
    return await workflow.execute_activity(
        name,
        args,
        result_type=result_type,
        start_to_close_timeout=timedelta(seconds=timeout),
        summary=summary,
    )


async def _remembered(args: Any) -> Any:
    from rath.activities.memory import RememberResult

    result = await _activity("rath.memory.remember", args, RememberResult, "remember memory")
    return result.record


async def _recalled(args: Any) -> Any:
    from rath.activities.memory import RecallResult

    result = await _activity("rath.memory.recall", args, RecallResult, "recall memories")
    return list(result.hits)


async def _committed(owner: AgentMemoryMethods, spec: MemorySpec, session: Session) -> Any:
    from rath._runtime.providers import spec_from_provider
    from rath._runtime.scope import current_scope
    from rath.activities.memory import CommitArgs
    from rath.memory import CommitResult

    await session.ready()
    provider = spec_from_provider(owner.agent.provider, demo_fallback=current_scope().demo_fallback)
    args = CommitArgs(
        memory=spec,
        transcript=session.table,
        provider=provider,
        agent_name=getattr(owner, "name", "agent"),
        session_id=str(session.id),
    )
    return await _activity("rath.memory.commit", args, CommitResult, "commit memories", 600.0)
