"""The client's session host: what sessions made in plain Python ask of Rath's runtime.

Loading ``rath.runtime`` installs :class:`ClientHost` as the process's host (see
:class:`~rath.session.session.SessionHost`), taking over the sandbox holds made before.
"""

from __future__ import annotations

from rath.backend.sandboxes import check_backend_name
from rath.llm.provider import Provider
from rath.runtime.launch import start_compress
from rath.runtime.sandboxes import hold, release
from rath.session._calls import CompressJob, slug
from rath.session._default_host import DefaultHost
from rath.session.chunk import ChunkRow
from rath.session.graph import record_session
from rath.session.merge import interleave_by_time
from rath.session.placement import Placement
from rath.session.session import Session, merged_usage, set_process_host
from rath.session.table_ref import TableRef
from rath.store import current_store


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
        """Start a ``rath.Compress`` run whose result is ``out``."""
        start_compress(
            CompressJob(
                user=user,
                agent=agent,
                provider=provider,
                instruction=instruction,
                name=slug(name),
                out=out,
                inputs=inputs,
                usage_from=usage_from,
            )
        )


def install() -> ClientHost:
    """Make a :class:`ClientHost` the process's session host; it takes earlier holds over."""
    host = ClientHost()
    previous = set_process_host(host)
    if isinstance(previous, DefaultHost):
        previous.handover(host)
    return host
