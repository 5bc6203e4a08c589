"""An Agent's memory: what ``memory=`` binds, and its memory methods (OpenRath's names).

From plain Python the methods act on the store in this process; inside a durable ``forward``
they are activities of the run and return a task to ``await`` (docs/memory.md, "Agents").
"""

from __future__ import annotations

from datetime import timedelta
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

import rath.memory
from rath.contracts.memory import (
    COMMIT_MEMORIES,
    RECALL_MEMORIES,
    REMEMBER_MEMORY,
    CommitArgs,
    RecallArgs,
    RememberArgs,
)
from rath.errors import ConfigError
from rath.flow.agent_param import AgentParam
from rath.flow.memory_inject import is_injected_row
from rath.llm.provider import spec_from_provider
from rath.memory.abc import MemoryStore, MemoryStoreSpec, write_op
from rath.memory.errors import MemoryStoreClosed
from rath.memory.op_types import MemoryOpCommit, MemoryOpFind
from rath.memory.results import MemoryHits, MemoryRecord
from rath.memory.spec import CommitResult, MemorySpec
from rath.session import ChunkKind, ChunkRow, Session
from rath.utils.in_workflow import in_workflow

if TYPE_CHECKING:
    from rath.workflows.scope import WorkflowScope

_CALL_TIMEOUT = timedelta(seconds=60)
_COMMIT_TIMEOUT = timedelta(minutes=10)
_ARCHIVED = CommitResult(
    preview="not extracted: commit_memory(session, wait=True) extracts facts with the model"
)
_MEMORY_FORMS = (str, MemorySpec, MemoryStoreSpec, MemoryStore)
_COMMITTED_ROLES = {
    ChunkKind.SYSTEM: "system",
    ChunkKind.USER: "user",
    ChunkKind.ASSISTANT: "assistant",
}

MemoryArg = MemoryStore | MemorySpec | MemoryStoreSpec | str | None
"""What ``Agent(memory=...)`` takes."""


class AgentMemoryMethods:
    """``remember_memory``, ``recall_memory``, ``commit_memory``, ``close`` and ``memory``."""

    agent: AgentParam
    _memory_spec: MemorySpec | None
    _memory_store: MemoryStore | None
    _memory_handle: str = ""
    _memory_closed: bool = False

    def _bind_memory(self, memory: object) -> MemoryStore | MemorySpec | None:
        """Resolve ``memory=``: the store the agent now holds (one reference), else its spec.

        Raises:
            TypeError: ``memory`` is not a store, a spec, a name or ``None``.
            MemoryBackendNotFound: A name that is neither a config preset nor a backend.
            ConfigError: A store that cannot be described to a worker.
        """
        if memory is not None and not isinstance(memory, _MEMORY_FORMS):
            raise TypeError(
                "memory must be a memory store, a MemorySpec, a MemoryStoreSpec, 'local', a "
                f"backend or config preset name, or None; got {type(memory).__name__}"
            )
        if isinstance(memory, MemoryStoreSpec) or (
            isinstance(memory, str) and memory.partition(":")[0] != "local"
        ):
            # OpenRath's names: a config preset or a backend, opened here (a new store).
            memory = rath.memory.open_plane_store(memory)
        self._memory_spec = rath.memory.memory_spec(memory)
        handle = getattr(memory, "handle", None)
        self._memory_handle = handle if isinstance(handle, str) else repr(memory)
        # A store object is shared: the agent holds one reference until close().
        self._memory_store = memory.acquire() if isinstance(memory, MemoryStore) else None
        return self._memory_store if self._memory_store is not None else self._memory_spec

    def close(self) -> None:
        """Release the agent's reference to its memory store (idempotent).

        A store given as an object (or opened from a name) closes when its last holder
        releases it, and ``memory`` is ``None`` from then on; a store named by a spec
        (``memory="local"``) is opened per call on the worker and needs nothing here.
        """
        store, self._memory_store = self._memory_store, None
        self._memory_closed = True
        if store is not None:
            self.agent.memory = None
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
    def memory(self) -> MemoryStore | MemorySpec | None:
        """The store the agent holds, else its :class:`~rath.memory.MemorySpec`, else ``None``."""
        return self.agent.memory

    def remember_memory(
        self,
        content: str,
        *,
        scope: str | None = None,
        category: str | None = None,
        wait: bool = False,
        key: str | None = None,
        session_id: str | None = None,
    ) -> Any:
        """Store ``content`` at ``memory://<scope>/memories/<category>/<id>``.

        Args:
            content: The text to remember.
            scope: Default: the spec's (``user``).
            category: Default: the spec's (``preferences``).
            wait: OpenRath's: passed to a plane store's write; Rath's stores always write
                before returning.
            key: An idempotency key (the entry's id); by default one derived from the content,
                so the same text is stored once.
            session_id: The session the knowledge came from (Rath's stores keep it).

        Returns:
            A plane store's :class:`~rath.memory.MemoryWriteResult` (or its failure value);
            else the :class:`~rath.memory.MemoryRecord`; in a forward, a task resolving to it.
        """
        spec = self._require_memory()
        if in_workflow():
            args = RememberArgs(
                content=content,
                memory=spec,
                scope=scope,
                category=category,
                key=key,
                session_id=session_id,
            )
            return _scope().start_task(_remembered(args))
        plane = self._plane_store()
        if plane is not None:
            where = (scope or spec.scope, category or spec.category)
            return plane.dispatch(write_op(content, *where, key=key, wait=wait))
        store = self._memory_store or spec
        return rath.memory.remember(
            store, content, scope=scope, category=category, key=key, session_id=session_id
        )

    def recall_memory(
        self,
        query: str,
        *,
        top_k: int = 4,
        target_uri: str | None = None,
        target: str | None = None,
    ) -> Any:
        """The memories most relevant to ``query``, best first.

        Args:
            query: Free text.
            top_k: The most hits.
            target_uri: Search only under this scope or ``memory://`` prefix (``target`` is
                Rath's name for it).
            target: Rath's name for ``target_uri``.

        Returns:
            A plane store's :class:`~rath.memory.MemoryFindResult`; else
            :class:`~rath.memory.MemoryHits` (a list with ``.hits``, never a zero score); in a
            forward, a task resolving to it.
        """
        spec = self._require_memory()
        where = target_uri if target_uri is not None else target
        if in_workflow():
            args = RecallArgs(query=query, memory=spec, top_k=top_k, target=where)
            return _scope().start_task(_recalled(args))
        plane = self._plane_store()
        if plane is not None:
            return plane.dispatch(MemoryOpFind(query=query, target_uri=where, top_k=top_k))
        return rath.memory.recall(self._memory_store or spec, query, top_k=top_k, target=where)

    def commit_memory(self, session: Session, *, wait: bool = False) -> Any:
        """Hand ``session``'s conversation to the memory store.

        A plane store gets OpenRath's ``MemoryOpCommit`` of the session's system, user and
        assistant text (injected memory rows left out) and extracts memories as its backend
        does (the local one only with ``wait=True`` and a ``chat_provider`` option). A SQLite
        store extracts durable facts with the agent's model only with ``wait=True``; with
        ``wait=False`` (OpenRath's default: archive only) no model call is made.

        Returns:
            A plane store's :class:`~rath.memory.MemoryCommitResult` (or its failure value);
            else Rath's :class:`~rath.memory.CommitResult`; in a forward, a task resolving to
            it.
        """
        spec = self._require_memory()
        if in_workflow():
            if not wait and _scope().has_change("rath-commit-memory-archive-only", since=2):
                return _scope().start_task(_archived())
            return _scope().start_task(_committed(self, spec, session))
        rows = session.chunk_table.rows
        plane = self._plane_store()
        if plane is not None:
            messages = tuple(_op_messages(rows))
            op = MemoryOpCommit(session_id=str(session.id), messages=messages, wait=wait)
            return plane.dispatch(op)
        if not wait:
            return _ARCHIVED
        store = self._memory_store or spec
        return rath.memory.commit(store, rows, self.agent.provider, session_id=str(session.id))

    def _plane_store(self) -> MemoryStore | None:
        store = self._memory_store
        return None if store is None or isinstance(store, rath.memory.LocalMemoryStore) else store

    def _require_memory(self) -> MemorySpec:
        if self._memory_closed and self._memory_spec is not None:
            raise MemoryStoreClosed(
                self._memory_handle,
                "this agent was closed (agent.close() or the end of its `with` block): "
                "create a new Agent to use its memory again",
            )
        if self._memory_spec is None:
            raise ConfigError(
                "this agent has no memory store: create it with Agent(..., memory='local') "
                "(or a MemorySpec, or a memory store)"
            )
        return self._memory_spec


def _op_messages(rows: tuple[ChunkRow, ...]) -> list[dict[str, Any]]:
    """OpenRath's commit messages: ``{role, content}`` of system, user and assistant rows.

    Tool results and tool calls are left out (an assistant's content may be ``None``), and so
    are injected memories, which are in the store already.
    """
    return [
        {"role": _COMMITTED_ROLES[row.kind], "content": row.payload.get("content")}
        for row in rows
        if row.kind in _COMMITTED_ROLES and not is_injected_row(row)
    ]


def _scope() -> WorkflowScope:
    """The durable run's scope (called only in a workflow, where Temporal is loaded)."""
    from rath.workflows.scope import current_scope  # deferred, for cost: flow loads no Temporal

    return current_scope()


async def _remembered(args: RememberArgs) -> MemoryRecord:
    result = await REMEMBER_MEMORY.execute(
        args, start_to_close_timeout=_CALL_TIMEOUT, summary="remember memory"
    )
    return result.record


async def _recalled(args: RecallArgs) -> MemoryHits:
    result = await RECALL_MEMORIES.execute(
        args, start_to_close_timeout=_CALL_TIMEOUT, summary="recall memories"
    )
    return MemoryHits(result.hits)


async def _archived() -> CommitResult:
    return _ARCHIVED


async def _committed(owner: AgentMemoryMethods, spec: MemorySpec, session: Session) -> CommitResult:
    from temporalio.common import RetryPolicy  # deferred, for cost: flow loads no Temporal

    await session.ready()
    provider = spec_from_provider(owner.agent.provider, demo_fallback=_scope().demo_fallback)
    args = CommitArgs(
        memory=spec,
        transcript=session.table,
        provider=provider,
        agent_name=getattr(owner, "name", "agent"),
        session_id=str(session.id),
    )
    return await COMMIT_MEMORIES.execute(
        args,
        start_to_close_timeout=_COMMIT_TIMEOUT,
        heartbeat_timeout=timedelta(seconds=30),
        retry_policy=RetryPolicy(
            # A reply that is not a list of facts will not become one on the next try (invariant 3).
            maximum_attempts=6,
            non_retryable_error_types=["ConfigError", "ExtractionError"],
        ),
        summary="commit memories",
    )
