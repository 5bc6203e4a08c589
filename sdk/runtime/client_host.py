"""The client's session host: what plain-Python sessions ask of the runtime. See docs/modules.md."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any
from uuid import UUID

from rath.backend import BackendSandbox, get
from rath.backend.sandboxes import check_backend_name
from rath.contracts.calls import loop_call, refused_streaming_executor
from rath.errors import UserError
from rath.llm.registry import cannot_stream
from rath.runtime.attach import attach
from rath.runtime.forward import run_forward
from rath.runtime.launch import start_compress, start_loop
from rath.runtime.persist import persist_when_done, writer_for
from rath.runtime.sandboxes import hold, release
from rath.runtime.session_catalog import SessionCatalog
from rath.session.chunk import ChunkRow
from rath.session.default_host import DefaultHost
from rath.session.deferred import Deferred
from rath.session.graph import record_session
from rath.session.host import CompressJob, LoopRequest, set_process_host
from rath.session.loop import resolve_executor
from rath.session.manager import register_run
from rath.session.merge import interleave_by_time, merged_usage
from rath.session.placement import Placement
from rath.session.session import Session
from rath.session.table_ref import TableRef
from rath.settings import Settings
from rath.store import current_store
from rath.tools.agent_tools import agent_tool_set
from rath.utils.in_workflow import in_workflow

_NO_SCOPE = (
    "agents can be called from workflow code only inside a rath Workflow's forward "
    "(run it with `MyWorkflow(...)(session)`), not from other Temporal workflows"
)


class ClientHost:
    """Sessions in plain Python: the chunk store, the lineage journal, sandbox leases, runs."""

    def check_backend(self, backend: str) -> None:
        """Raise ``SandboxUnavailableError`` for an unregistered backend name."""
        check_backend_name(backend)

    def load_rows(self, table: TableRef) -> tuple[ChunkRow, ...]:
        """Read a stored table from the chunk store."""
        return current_store().load_rows(table)

    async def read_rows(self, table: TableRef) -> tuple[ChunkRow, ...]:
        """Outside workflow code reading does not need an activity."""
        return self.load_rows(table)

    def record(self, session: Session, *, inputs: tuple[Session, ...] = ()) -> None:
        """Note ``session`` in the lineage journal; it holds its sandbox."""
        record_session(session, inputs=inputs)
        hold(session)

    def hold(self, session: Session) -> None:
        """Make ``session`` a holder of its sandbox (a lease in the shared registry)."""
        hold(session)

    def release(self, placement: Placement, holder: str) -> bool:
        """Let ``holder`` go; the last holder closes the sandbox on its owner."""
        return release(placement, holder)

    def interleave(self, out: Session, ours: Session, theirs: Session) -> None:
        """Interleave here, reading the store, once both sessions are ready."""

        def compute() -> Session:
            rows = interleave_by_time(ours.chunk_table.rows, theirs.chunk_table.rows)
            table = TableRef.sealed(current_store().seal(TableRef.inline(*rows)))
            usage = merged_usage(ours, theirs)
            return out._settled(table, rows, usage, sandbox=ours.sandbox or theirs.sandbox)

        out._resolve_with((ours, theirs), compute)

    def compress(self, job: CompressJob) -> None:
        """Start a ``rath.Compress`` run whose result is ``job.out``."""
        _refuse_workflow_code()
        if job.on_event is not None:
            executor = resolve_executor(
                agent_provider=job.provider, executor=job.executor, on_event=job.on_event
            )
            job = replace(job, executor=executor)
        writer = writer_for(job.out, job.persist)
        start_compress(job)
        if job.register:
            register_run(job.user, job.agent, job.out)
        if writer is not None:
            persist_when_done(job.out, writer)

    def run_loop(self, request: LoopRequest) -> None:
        """Start a top-level ``rath.SessionLoop`` run whose result is ``request.out``."""
        call = loop_call(request, agent_tool_set(request.tools, request.tool_policy))
        if refused_streaming_executor(request) or _refused_not_streaming(request):
            return
        _refuse_workflow_code()
        out = request.out
        writer = writer_for(out, request.persist)
        start_loop(call)
        register_run(request.user, request.agent, out)
        if writer is not None:
            persist_when_done(out, writer)
        if not request.lazy:
            out.synchronize()

    def open_handle(self, placement: Placement) -> BackendSandbox:
        """A plane handle (reference count 0) on ``placement``'s workspace."""
        spec = placement.resolved_spec(Settings.from_env().workspaces_dir)
        return get(spec.backend).open(spec)

    def attach(self, session_or_run: UUID | str) -> Session:
        """The session of an existing run (see ``rath.session.attach``)."""
        return attach(session_or_run)

    def catalog(self) -> SessionCatalog:
        """The session catalog in this process's store."""
        return SessionCatalog()

    def run_forward(
        self, module: Any, session: Session, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Session:
        """Start ``module``'s forward as a top-level ``rath.Forward`` run (inline in workflows)."""
        if in_workflow():
            return module.forward(session, *args, **kwargs)  # type: ignore[no-any-return]
        return run_forward(module, session, *args, **kwargs)


def _refused_not_streaming(request: LoopRequest) -> bool:
    """``on_event`` with a client that cannot stream: the output raises ``TypeError`` when read."""
    refusal = cannot_stream(request.provider) if request.on_event is not None else None
    if refusal is None:
        return False
    request.out.attach_pending(Deferred((), partial(_raise, refusal)))
    return True


def _raise(error: Exception) -> Session:
    raise error


def _refuse_workflow_code() -> None:
    if in_workflow():
        raise UserError(_NO_SCOPE)


_installed: list[ClientHost] = []


def install() -> ClientHost:
    """Make a :class:`ClientHost` the process's session host; it takes earlier holds over."""
    host = ClientHost()
    previous = set_process_host(host)
    if isinstance(previous, DefaultHost):
        previous.handover(host)
    _installed[:] = [host]
    return host


def current() -> ClientHost:
    """The installed client host (``rath.runtime`` installs one on import)."""
    return _installed[0] if _installed else install()
