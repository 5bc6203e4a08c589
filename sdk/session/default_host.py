"""The session host before the runtime loads, and in workflows outside runs. See docs/modules.md."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from rath.errors import NotReadyError, UserError
from rath.session.chunk import ChunkRow
from rath.session.graph import record_session
from rath.session.host import (
    CompressJob,
    LoopRequest,
    PersistedCatalog,
    SessionHost,
    runtime_host,
)
from rath.session.placement import Placement
from rath.session.session import Session
from rath.session.table_ref import TableRef
from rath.utils.in_workflow import in_workflow

_NOT_IN_RUN = (
    "agents and model-backed merges can be called from workflow code only inside a rath "
    "Workflow's forward (run it with `MyWorkflow(...)(session)`), not from other workflows"
)


class DefaultHost:
    """What sessions ask before a runtime installs the client host (see the module doc)."""

    def __init__(self) -> None:
        self.holds: dict[str, Session] = {}

    def check_backend(self, backend: str) -> None:
        """Names are checked where the sandbox opens, on the worker."""

    def load_rows(self, table: TableRef) -> tuple[ChunkRow, ...]:
        """Read through the runtime's chunk store (refused in workflow code)."""
        if in_workflow():
            raise NotReadyError(
                "this session's rows live in the chunk store, which workflow code cannot read "
                "(no I/O in workflows); read them client-side, or in an activity"
            )
        return runtime_host().load_rows(table)

    async def read_rows(self, table: TableRef) -> tuple[ChunkRow, ...]:
        """Refused outside a run scope."""
        raise UserError(f"reading a stored session from workflow code: {_NOT_IN_RUN}")

    def record(self, session: Session, *, inputs: tuple[Session, ...] = ()) -> None:
        """Client side: note ``session`` in the lineage journal and hold its sandbox."""
        if in_workflow():
            return
        record_session(session, inputs=inputs)
        self.hold(session)

    def hold(self, session: Session) -> None:
        """Remember the hold until the client host takes it over."""
        if session.sandbox is not None and not in_workflow():
            self.holds[str(session.id)] = session

    def release(self, placement: Placement, holder: str) -> bool:
        """Forget a hold; a sandbox no run has opened has nothing to close."""
        self.holds.pop(holder, None)
        held = any(
            s.sandbox is not None and s.sandbox.sandbox_id == placement.sandbox_id
            for s in self.holds.values()
        )
        return not held

    def interleave(self, out: Session, ours: Session, theirs: Session) -> None:
        """Interleaving reads and seals stored rows: the runtime does it."""
        self._runtime("interleave_by_time merge").interleave(out, ours, theirs)

    def compress(self, job: CompressJob) -> None:
        """A model-written summary: the runtime starts it."""
        self._runtime(f"{job.name!r} (a model-written summary)").compress(job)

    def run_loop(self, request: LoopRequest) -> None:
        """An agent run: the runtime starts it."""
        self._runtime(f"agent {request.agent_name!r}").run_loop(request)

    def open_handle(self, placement: Placement) -> Any:
        """A sandbox handle: the runtime opens it."""
        return self._runtime("opening a sandbox handle").open_handle(placement)

    def attach(self, session_or_run: UUID | str) -> Session:
        """Attaching asks Temporal: the runtime does it."""
        out: Session = self._runtime("attach").attach(session_or_run)
        return out

    def catalog(self) -> PersistedCatalog:
        """The session catalog is in the runtime's store."""
        return self._runtime("the session catalog").catalog()

    def run_forward(
        self, module: Any, session: Session, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Session:
        """A durable forward: the runtime starts it (workflow code runs it inline)."""
        if in_workflow():
            return module.forward(session, *args, **kwargs)  # type: ignore[no-any-return]
        out: Session = runtime_host().run_forward(module, session, args, kwargs)
        return out

    def handover(self, host: SessionHost) -> None:
        """Give the holds taken so far to ``host`` (the runtime's client host)."""
        holds, self.holds = self.holds, {}
        for session in holds.values():
            host.hold(session)

    @staticmethod
    def _runtime(what: str) -> SessionHost:
        if in_workflow():
            raise UserError(f"{what}: {_NOT_IN_RUN}")
        return runtime_host()
