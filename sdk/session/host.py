"""Who runs sessions: the :class:`SessionHost` protocol and its requests. See docs/modules.md."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeAlias
from uuid import UUID

from rath.errors import ConfigError
from rath.llm.provider import Provider
from rath.session.chunk import ChunkRow
from rath.session.table_ref import TableRef
from rath.utils.runtime_hook import make_runtime_host

# This module sits below the session, its placement and the persistence records (they ask
# it for their host), so it names them by role, not by import.
Session: TypeAlias = Any
"""A :class:`~rath.session.Session`."""
Placement: TypeAlias = Any
"""A :class:`~rath.session.Placement`."""
PersistedSession: TypeAlias = Any
"""A :class:`~rath.session.persistence.PersistedSession`."""


@dataclass(frozen=True, slots=True)
class Persist:
    """OpenRath's ``persist=``/``persist_path=``/``sandbox_handle_id=``: write a session file."""

    path: Path | None = None
    sandbox_handle_id: str | None = None


@dataclass(frozen=True, slots=True)
class LoopRequest:
    """What :func:`~rath.session.run_session_loop` was given, unresolved (the host resolves)."""

    user: Session
    agent: Session
    provider: Provider
    out: Session
    agent_name: str
    tools: Sequence[Any] | None = None
    tool_policy: Any = None
    max_tool_rounds: int | None = None
    options: Any = None
    compress_at_tokens: int | None = None
    memory: Any = None
    budget: Any = None
    on_event: Callable[[Any], None] | None = None
    executor: Any = None
    lazy: bool = True
    persist: Persist | None = None


@dataclass(frozen=True, slots=True)
class CompressJob:
    """One compression to start (``run_session_compress`` or a ``summarize`` merge)."""

    user: Session
    agent: Session
    provider: Provider
    instruction: str | None
    name: str
    out: Session
    inputs: tuple[Session, ...]
    usage_from: tuple[Session, ...] = ()
    executor: Any = None
    """OpenRath's loop executor (``executor=``): it writes the summary instead of the provider."""
    on_event: Callable[[Any], None] | None = None
    persist: Persist | None = None
    register: bool = False
    """Register the sessions in ``session_registry`` (``run_session_compress``'s default)."""


class PersistedCatalog(Protocol):
    """The session catalog's half of ``rath.session.persistence`` (files are read directly)."""

    def load(self, session_id: UUID | str) -> PersistedSession | None:
        """The recorded session (checked against its run), or ``None``."""
        ...

    def metas(self) -> list[Any]:
        """Every recorded session's meta."""
        ...

    def delete(self, session_id: UUID | str) -> bool:
        """Remove the record; whether there was one."""
        ...

    def reconcile(self) -> None:
        """Mark runs that ended unannounced as ended."""
        ...


class SessionHost(Protocol):
    """Who runs sessions in this context: Rath's client runtime, or a durable run's scope."""

    def check_backend(self, backend: str) -> None:
        """Raise ``SandboxUnavailableError`` when ``backend`` is not a registered name."""
        ...

    def load_rows(self, table: TableRef) -> tuple[ChunkRow, ...]:
        """A stored table's rows (blocking; not in workflow code)."""
        ...

    async def read_rows(self, table: TableRef) -> tuple[ChunkRow, ...]:
        """A stored table's rows, from workflow code (an activity)."""
        ...

    def record(self, session: Session, *, inputs: tuple[Session, ...] = ()) -> None:
        """Note a new session in the lineage graph (and hold its sandbox, client-side)."""
        ...

    def hold(self, session: Session) -> None:
        """Make a placed session a holder of its sandbox."""
        ...

    def release(self, placement: Placement, holder: str) -> bool:
        """Let ``holder`` go; returns whether that closed the sandbox."""
        ...

    def interleave(self, out: Session, ours: Session, theirs: Session) -> None:
        """Make ``out`` the (lazy) ``interleave_by_time`` merge of two sessions."""
        ...

    def compress(self, job: CompressJob) -> None:
        """Make ``job.out`` the (lazy) compression of ``job.user`` by ``job.provider``."""
        ...

    def run_loop(self, request: LoopRequest) -> None:
        """Make ``request.out`` the (lazy) output of an agent run."""
        ...

    def open_handle(self, placement: Placement) -> Any:
        """A backend-plane handle (reference count 0) on ``placement``'s sandbox."""
        ...

    def attach(self, session_or_run: UUID | str) -> Session:
        """The session of an existing run (``rath.session.attach``)."""
        ...

    def catalog(self) -> PersistedCatalog:
        """The session catalog (``rath.session.persistence``)."""
        ...

    def run_forward(
        self, module: Any, session: Session, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Session:
        """Run ``module.forward(session, *args, **kwargs)`` (``Workflow.__call__``)."""
        ...


_CONTEXT_HOST: ContextVar[SessionHost | None] = ContextVar("rath_session_host", default=None)
_process_host: list[SessionHost] = []


def current_host() -> SessionHost:
    """The host of this context: the one a run installed, else the process's.

    Raises:
        ConfigError: No host is installed (``rath.session`` installs a default on import).
    """
    host = _CONTEXT_HOST.get()
    if host is not None:
        return host
    if not _process_host:
        raise ConfigError("no session host is installed; import rath.session first")
    return _process_host[0]


def set_process_host(host: SessionHost) -> SessionHost | None:
    """Make ``host`` the process's host (outside runs); returns the one it replaces."""
    previous = _process_host[0] if _process_host else None
    _process_host[:] = [host]
    return previous


@contextlib.contextmanager
def hosted_by(host: SessionHost) -> Iterator[SessionHost]:
    """Make ``host`` current for the block (and for tasks started in it)."""
    token = _CONTEXT_HOST.set(host)
    try:
        yield host
    finally:
        # A run evicted from the worker's cache is closed from another context: nothing to undo.
        with contextlib.suppress(ValueError):
            _CONTEXT_HOST.reset(token)


def runtime_host() -> SessionHost:
    """The runtime's host, made (and made the process's) on first use.

    Raises:
        ConfigError: No runtime factory is installed (``import rath`` installs one).
    """
    host: SessionHost = make_runtime_host()
    return host
