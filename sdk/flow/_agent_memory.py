"""An Agent's memory methods: direct store calls from plain Python, activities in a forward."""

from __future__ import annotations

from datetime import timedelta
from types import TracebackType
from typing import Any, Self

from temporalio import workflow

from rath.contracts import (
    COMMIT_MEMORIES,
    RECALL_MEMORIES,
    REMEMBER_MEMORY,
    CommitArgs,
    RecallArgs,
    RememberArgs,
)
from rath.errors import ConfigError
from rath.flow._param import AgentParam
from rath.llm.providers import spec_from_provider
from rath.memory import (
    CommitResult,
    MemoryHit,
    MemoryRecord,
    MemorySpec,
    MemoryStore,
    MemoryStoreClosed,
    MemoryStoreSpec,
    commit,
    memory_spec,
    open_plane_store,
    recall,
    remember,
)
from rath.session._session import Session
from rath.workflows._scope import current_scope

_CALL_TIMEOUT = timedelta(seconds=60)
_COMMIT_TIMEOUT = timedelta(minutes=10)


class AgentMemoryMethods:
    """``remember_memory``, ``recall_memory`` and ``commit_memory`` (OpenRath's names).

    From plain Python they run here, against the store, and return their results. Inside a
    durable ``forward`` they are activities of the run (retried; a retried write or commit
    does not duplicate) and return a task to ``await``.
    """

    agent: AgentParam
    _memory_spec: MemorySpec | None
    _memory_store: MemoryStore | None
    _memory_closed: bool = False

    def _bind_memory(self, memory: object) -> None:
        if isinstance(memory, MemoryStoreSpec) or (
            isinstance(memory, str) and memory.partition(":")[0] != "local"
        ):
            # OpenRath's names: a config preset or a backend, opened here (a new store).
            memory = open_plane_store(memory)
        self._memory_spec = memory_spec(memory)
        # A store object is shared: the agent holds one reference until close().
        self._memory_store = memory.acquire() if isinstance(memory, MemoryStore) else None

    def close(self) -> None:
        """Release the agent's reference to its memory store (idempotent).

        A store given as an object closes when its last holder releases it; a store named by
        a spec (``memory="local"``) is opened per call on the worker and needs nothing here.
        """
        store, self._memory_store = self._memory_store, None
        self._memory_closed = True
        if store is not None:
            store.release()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

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
            args = RememberArgs(content=content, memory=spec, **fields)
            return current_scope().start_task(_remembered(args))
        return remember(self._memory_store or spec, content, **fields)

    def recall_memory(self, query: str, *, top_k: int = 4, target: str | None = None) -> Any:
        """The memories most relevant to ``query``, best first (never a zero score).

        Returns:
            A list of :class:`~rath.memory.MemoryHit`, or in a forward a task resolving to it.
        """
        spec = self._require_memory()
        if workflow.in_workflow():
            args = RecallArgs(query=query, memory=spec, top_k=top_k, target=target)
            return current_scope().start_task(_recalled(args))
        return recall(self._memory_store or spec, query, top_k=top_k, target=target)

    def commit_memory(self, session: Session, *, wait: bool = False) -> Any:
        """Extract durable facts from ``session`` with the agent's model and store them.

        ``wait`` is OpenRath's: from plain Python the commit is always done when this returns
        (there is no background extraction to wait for), so both values behave the same.

        Returns:
            A :class:`~rath.memory.CommitResult`, or in a forward a task resolving to it.
        """
        spec = self._require_memory()
        if workflow.in_workflow():
            return current_scope().start_task(_committed(self, spec, session))
        rows = session.chunk_table.rows
        store = self._memory_store or spec
        return commit(store, rows, self.agent.provider, session_id=str(session.id))

    def _require_memory(self) -> MemorySpec:
        if self._memory_closed and self._memory_spec is not None:
            raise MemoryStoreClosed(
                "this agent was closed (agent.close() or the end of its `with` block): "
                "create a new Agent to use its memory again"
            )
        if self._memory_spec is None:
            raise ConfigError(
                "this agent has no memory: create it with Agent(..., memory='local') "
                "(or a MemorySpec, or a memory store)"
            )
        return self._memory_spec


async def _remembered(args: RememberArgs) -> MemoryRecord:
    result = await REMEMBER_MEMORY.execute(
        args, start_to_close_timeout=_CALL_TIMEOUT, summary="remember memory"
    )
    return result.record


async def _recalled(args: RecallArgs) -> list[MemoryHit]:
    result = await RECALL_MEMORIES.execute(
        args, start_to_close_timeout=_CALL_TIMEOUT, summary="recall memories"
    )
    return list(result.hits)


async def _committed(owner: AgentMemoryMethods, spec: MemorySpec, session: Session) -> CommitResult:
    await session.ready()
    provider = spec_from_provider(owner.agent.provider, demo_fallback=current_scope().demo_fallback)
    args = CommitArgs(
        memory=spec,
        transcript=session.table,
        provider=provider,
        agent_name=getattr(owner, "name", "agent"),
        session_id=str(session.id),
    )
    return await COMMIT_MEMORIES.execute(
        args, start_to_close_timeout=_COMMIT_TIMEOUT, summary="commit memories"
    )
