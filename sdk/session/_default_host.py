"""The session host before Rath's runtime is loaded, and in workflow code outside a run scope.

``rath.session`` installs :class:`DefaultHost` on import, so plain value work (``Session.create``,
``fork``, ``merge`` by ``concat``, ``.to()``) needs nothing else. It keeps the lineage journal
and remembers which sessions hold a sandbox; the runtime's client host, once loaded, takes those
holds over (:meth:`DefaultHost.handover`). Work that needs the chunk store or a model is refused
with the fix. In workflow code with no run scope (a plain ``rath.SessionLoop``), recording and
holding do nothing, as there is no graph to record into.
"""

from __future__ import annotations

from rath.errors import ConfigError, NotReadyError, UserError
from rath.llm.provider import Provider
from rath.session.chunk import ChunkRow
from rath.session.graph import record_session
from rath.session.placement import Placement
from rath.session.session import Session, SessionHost
from rath.session.table_ref import TableRef
from rath.utils.in_workflow import in_workflow

_NEEDS_RUNTIME = (
    "needs Rath's runtime, which is not loaded in this process yet; "
    "`import rath.flow` (or start any run) first"
)
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
        """Refused: stored rows are read through the runtime's chunk store."""
        if in_workflow():
            raise NotReadyError(
                "this session's rows live in the chunk store, which workflow code cannot read "
                "(no I/O in workflows); read them client-side, or in an activity"
            )
        raise ConfigError(f"reading a stored session {_NEEDS_RUNTIME}")

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
        """Refused: interleaving reads and seals stored rows."""
        raise self._refusal("interleave_by_time merge")

    def compress(
        self,
        out: Session,
        user: Session,
        agent: Session,
        *,
        provider: Provider,
        instruction: str | None,
        name: str,
        inputs: tuple[Session, ...],
        usage_from: tuple[Session, ...] = (),
    ) -> None:
        """Refused: compression is a model call."""
        raise self._refusal(f"{name!r} (a model-written summary)")

    def handover(self, host: SessionHost) -> None:
        """Give the holds taken so far to ``host`` (the runtime's client host)."""
        holds, self.holds = self.holds, {}
        for session in holds.values():
            host.hold(session)

    @staticmethod
    def _refusal(what: str) -> Exception:
        if in_workflow():
            return UserError(f"{what}: {_NOT_IN_RUN}")
        return ConfigError(f"{what} {_NEEDS_RUNTIME}")
