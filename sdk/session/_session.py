"""``Session``: the value that flows through ``Workflow`` modules, like a tensor through layers.

A session is a typed pydantic model: an id, a transcript *by reference* (:class:`TableRef`),
lineage, a sandbox placement and token usage. It serialises through Temporal's pydantic
converter in O(1) bytes however long the transcript is. A session returned by an agent call is
*lazy*: its id and lineage are known at once, its rows and usage once the run finishes; reading
them waits (see :meth:`Session.synchronize`).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr
from temporalio import workflow

from rath._ids import new_id
from rath.errors import ConfigError, NotReadyError, RunError
from rath.llm._usage import TokenUsage
from rath.sandbox import SandboxSpec, check_backend_name
from rath.session._chunks import (
    ChunkKind,
    ChunkRow,
    ChunkTable,
    format_chunk_row_brief,
    system_text_chunk,
    user_text_chunk,
)
from rath.session._deferred import Deferred
from rath.session._diff import SessionDiff
from rath.session._lineage import LineageKind
from rath.session._table_ref import TableRef

if TYPE_CHECKING:
    from rath.session._merge import MergePolicy


_PREVIEW_HEAD = 4
_PREVIEW_TAIL = 4


class Placement(BaseModel):
    """Where a session's tools run: a sandbox backend, its spec, and a stable sandbox id.

    The id names the workspace when the spec gives no ``working_dir``, so every session derived
    from this one (loop outputs, forks) shares one workspace. ``owner`` is the task queue of
    the worker that opened the sandbox (set by the first tool call): every later tool call of
    every session on this sandbox runs there.
    """

    model_config = ConfigDict(frozen=True)

    spec: SandboxSpec
    sandbox_id: UUID
    owner: str | None = None

    @property
    def backend(self) -> str:
        """The backend name, e.g. ``"local"``."""
        return self.spec.backend

    def describe(self) -> str:
        """``backend:working_dir`` (or ``backend:#<id>`` for an allocated workspace)."""
        where = self.spec.working_dir or f"#{self.sandbox_id.hex[:8]}"
        return f"{self.backend}:{where}"


class PendingResult(Protocol):
    """The in-flight run behind a lazy session."""

    @property
    def run_id(self) -> str:
        """The Temporal workflow id of the run (shown in errors and repr)."""
        ...

    def done(self) -> bool:
        """True once the run has finished (successfully or not)."""
        ...

    def result(self) -> Session:
        """Wait for the run and return its output session, or raise its error."""
        ...


class Session(BaseModel):
    """A transcript plus lineage, sandbox placement and usage (OpenRath-compatible API)."""

    model_config = ConfigDict(validate_assignment=False)

    id: UUID = Field(default_factory=new_id)
    table: TableRef = TableRef()
    parent_session_ids: tuple[UUID, ...] = ()
    lineage_kind: LineageKind = LineageKind.UNKNOWN
    lineage_operator: str = "implicit"
    lineage_extras: tuple[tuple[str, Any], ...] = ()
    sandbox: Placement | None = None
    usage: TokenUsage | None = None

    _pending: PendingResult | None = PrivateAttr(default=None)
    _rows: tuple[ChunkRow, ...] | None = PrivateAttr(default=None)
    _run_id: str | None = PrivateAttr(default=None)

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def from_rows(cls, rows: tuple[ChunkRow, ...] | list[ChunkRow], **fields: Any) -> Session:
        """A session holding ``rows`` inline."""
        return cls(table=TableRef.inline(*rows), **fields)

    @classmethod
    def from_user_message(cls, message: str) -> Session:
        """One USER row; not lineage-stamped (as in OpenRath)."""
        return cls.from_rows([user_text_chunk(message)])

    @classmethod
    def from_agent_prompt(cls, prompt: str) -> Session:
        """One SYSTEM row (an agent's system prompt); not lineage-stamped."""
        return cls.from_rows([system_text_chunk(prompt)])

    @classmethod
    def create(cls, kind: str = "user", text: str = "") -> Session:
        """A stamped leaf: ``"user"`` or ``"system"`` with one row, or ``"empty"``.

        Raises:
            ValueError: ``kind`` is none of those.
        """
        if kind == "empty":
            return cls()
        if kind not in ("user", "system"):
            raise ValueError(
                f"Session.create kind must be 'user', 'system' or 'empty', not {kind!r}"
            )
        row = user_text_chunk(text) if kind == "user" else system_text_chunk(text)
        return cls.from_rows(
            [row],
            lineage_kind=LineageKind.LEAF_USER if kind == "user" else LineageKind.LEAF_SYSTEM,
            lineage_operator="Session.create",
            lineage_extras=(("source", "Session.create"),),
        )

    # -- lazy results ---------------------------------------------------------------------

    @property
    def pending(self) -> bool:
        """True while this session is the unfinished result of a run."""
        return self._pending is not None and not self._pending.done()

    @property
    def run_id(self) -> str | None:
        """The workflow id of the run that produced this session, if it is a run's result."""
        return self._run_id

    def attach_pending(self, pending: PendingResult) -> None:
        """Make this session the lazy result of ``pending`` (used by the runtime)."""
        self._pending = pending
        # A derived session (fork/merge of a lazy one) was not produced by that run.
        self._run_id = None if isinstance(pending, Deferred) else pending.run_id

    def synchronize(self) -> Session:
        """Wait for a lazy session's run, then publish its rows, usage and extras.

        Returns:
            ``self``.

        Raises:
            RunFailedError: The run failed (the message names its workflow id).
            NotReadyError: Inside workflow code, the run has not finished yet.
        """
        pending = self._pending
        if pending is None:
            return self
        if workflow.in_workflow() and not pending.done():
            raise NotReadyError(
                f"session {self.id} (run {pending.run_id!r}) is not finished yet; "
                "`await` it, or make `forward` an `async def` and await the session first"
            )
        result = pending.result()
        self.table = result.table
        self.usage = result.usage
        self.lineage_extras = result.lineage_extras
        self.parent_session_ids = result.parent_session_ids
        self.sandbox = result.sandbox
        self._pending = None
        self._rows = result._rows
        return self

    def __await__(self) -> Any:
        return self._await().__await__()

    async def ready(self) -> Session:
        """Wait until the run behind a lazy session finished, without loading its rows.

        In workflow code this adds nothing to history; ``await session`` (which also
        brings the rows in, by an activity) is for code that reads the content.
        """
        pending = self._pending
        waiter = getattr(pending, "wait", None)
        if waiter is not None:
            await waiter()
        return self.synchronize()

    async def _await(self) -> Session:
        await self.ready()
        if workflow.in_workflow() and self._rows is None and self.table.inline_rows() is None:
            from rath._runtime.scope import read_rows

            self._rows = await read_rows(self.table)
        return self

    # -- content --------------------------------------------------------------------------

    @property
    def chunk_table(self) -> ChunkTable:
        """The transcript rows (waits for a lazy session)."""
        self.synchronize()
        if self._rows is None:
            self._rows = _load_rows(self.table)
        return ChunkTable(rows=self._rows)

    @property
    def cumulative_usage(self) -> TokenUsage | None:
        """Tokens used producing this session (waits for a lazy session)."""
        self.synchronize()
        return self.usage

    # -- branching ------------------------------------------------------------------------

    def _derive(self, **fields: Any) -> Session:
        out = Session(sandbox=self.sandbox, **fields)
        if self.pending:
            out.attach_pending(
                Deferred(
                    (self,), lambda: out._settled(self.table, self._rows, sandbox=self.sandbox)
                )
            )
        else:
            self.synchronize()
            out.table, out._rows = self.table, self._rows
        _record(out, inputs=(self,))
        return out

    def _settled(
        self,
        table: TableRef,
        rows: tuple[ChunkRow, ...] | None,
        usage: TokenUsage | None = None,
        *,
        sandbox: Placement | None = None,
    ) -> Session:
        """The result a :class:`Deferred` publishes into this (eagerly built) session.

        ``sandbox`` is the finished source's placement, which may now name its owner.
        """
        update: dict[str, Any] = {"table": table, "usage": usage}
        if sandbox is not None:
            update["sandbox"] = sandbox
        result = self.model_copy(update=update)
        result._rows = rows
        return result

    def fork(self) -> Session:
        """A new session with the same rows (shared by reference) and sandbox; parent = self.

        O(1): no rows are copied. On a lazy session it returns at once, lazily.
        """
        return self._derive(
            parent_session_ids=(self.id,),
            lineage_kind=LineageKind.OP_FORK,
            lineage_operator="Session.fork",
        )

    def detach(self) -> Session:
        """Like :meth:`fork`, but with no parent: the start of a new lineage tree."""
        return self._derive(lineage_kind=LineageKind.OP_DETACH, lineage_operator="Session.detach")

    def merge(self, other: Session, policy: MergePolicy = "concat") -> Session:
        """Combine two sessions; usage is summed and ``self``'s sandbox kept.

        Args:
            other: The session to merge in.
            policy: ``"concat"`` (OpenRath's: ``self``'s rows then ``other``'s, in O(1)
                bytes); ``"interleave_by_time"`` (the rows both share once, then each
                branch's turns in the order they were made); ``"summarize"`` or
                ``Summarize(provider=...)`` (a model writes one row for both branches); or
                a function ``(self, other) -> Session`` whose result's rows become the
                merge's (workflow code can only combine references there).

        Returns:
            A new session with parents ``(self.id, other.id)``; lazy if either input is, or
            if the policy calls an activity or a model.

        Raises:
            ValueError: An unknown policy, or sessions on different sandbox backends.
        """
        from rath.session._merge import merge_sessions

        return merge_sessions(self, other, policy)

    def diff(self, other: Session) -> SessionDiff:
        """The rows this session has (``+``) and ``other`` has (``-``) since they parted.

        Waits for lazy sessions; in workflow code, ``await`` both first.
        """
        return SessionDiff.between(self.chunk_table.rows, other.chunk_table.rows)

    def to(
        self, backend: str = "local", *, spec: SandboxSpec | str | Path | None = None
    ) -> Session:
        """Place this session's tools on a sandbox backend; returns ``self``.

        Args:
            backend: A registered backend name (``"local"``, ``"bwrap"``, ``"docker"`` or one
                added with :func:`rath.sandbox.register_backend`). Whether it can run is
                checked where the sandbox opens, on the worker.
            spec: A :class:`SandboxSpec`, or a workspace directory. Outside workflow code a
                relative directory is resolved against the current directory now; ``None``
                gives the session a fresh workspace under the data dir.

        Raises:
            SandboxUnavailableError: ``backend`` is not registered; the message lists the
                registered backends.
        """
        check_backend_name(backend)
        if isinstance(spec, SandboxSpec):
            sandbox_spec = spec.model_copy(update={"backend": backend})
        else:
            sandbox_spec = SandboxSpec(backend=backend, working_dir=_workspace_path(spec))
        self.sandbox = Placement(spec=sandbox_spec, sandbox_id=new_id())
        _hold(self)
        return self

    def release(self) -> bool:
        """Stop holding this session's sandbox; the last session to let go closes it.

        Every placed session made in plain Python (``.to()``, forks, detaches, merges, a run's
        output) holds its sandbox. Closing deletes a workspace Rath allocated (``.to(name)``
        with no ``spec``); one you named is never touched. A lazy session is waited for first,
        so a run never loses its workspace. ``with session:`` releases on exit.

        Returns:
            Whether this release closed the sandbox.
        """
        if self.sandbox is None or workflow.in_workflow():
            return False
        with contextlib.suppress(RunError):  # a failed run still let go of its sandbox
            self.synchronize()
        from rath._runtime.sandboxes import release

        return release(self.sandbox, str(self.id))

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    # -- display --------------------------------------------------------------------------

    def __repr__(self) -> str:
        head = f"Session(id={str(self.id)[:8]}, lineage={self.lineage_kind.value}"
        if self.sandbox is not None:
            head += f", sandbox={self.sandbox.describe()}"
        if self._pending is not None and not self._pending.done():
            return head + f", pending run={self._pending.run_id!r})"
        if self._pending is not None or (self._rows is None and self.table.inline_rows() is None):
            try:
                rows = self.chunk_table.rows
            except Exception as exc:  # a failed run still gets a readable repr
                return head + f", error={type(exc).__name__}: {exc})"
        else:
            rows = self._rows if self._rows is not None else self.table.inline_rows() or ()
        lines = [head + f", chunks={len(rows)})"]
        shown: list[tuple[int, ChunkRow | None]] = list(enumerate(rows))
        if len(rows) > _PREVIEW_HEAD + _PREVIEW_TAIL:
            omitted = len(rows) - _PREVIEW_HEAD - _PREVIEW_TAIL
            shown = [*shown[:_PREVIEW_HEAD], (-1, None), *shown[-_PREVIEW_TAIL:]]
        else:
            omitted = 0
        for index, row in shown:
            if row is None:
                lines.append(f"  ... ({omitted} chunks omitted) ...")
            else:
                lines.append("  " + format_chunk_row_brief(index, row))
        return "\n".join(lines)

    def __str__(self) -> str:
        """The transcript preview; unlike ``repr``, this waits for a lazy session."""
        if self._pending is not None and not workflow.in_workflow():
            with contextlib.suppress(Exception):  # repr below shows the failure
                self.synchronize()
        return repr(self)

    def rows_of_kind(self, kind: ChunkKind) -> tuple[ChunkRow, ...]:
        """The rows of one kind, in order (waits for a lazy session)."""
        return tuple(row for row in self.chunk_table.rows if row.kind is kind)


def _workspace_path(spec: str | Path | None) -> str | None:
    if spec is None:
        return None
    path = Path(spec).expanduser()
    if path.is_absolute():
        return str(path)
    if workflow.in_workflow():
        raise ConfigError(
            f"sandbox spec {str(spec)!r} is relative; inside workflow code pass an absolute "
            "workspace path (the worker's current directory is not yours)"
        )
    return str(path.resolve())


def _load_rows(table: TableRef) -> tuple[ChunkRow, ...]:
    inline = table.inline_rows()
    if inline is not None:
        return inline
    if workflow.in_workflow():
        raise NotReadyError(
            "this session's rows live in the chunk store, which workflow code cannot read "
            "(no I/O in workflows); read them client-side, or in an activity"
        )
    from rath.store import current_store

    return current_store().load_rows(table)


def _record(session: Session, *, inputs: tuple[Session, ...]) -> None:
    """Note a new session in the run's graph (workflow code) or the client's journal."""
    if workflow.in_workflow():
        from rath._runtime.scope import current_scope_or_none

        scope = current_scope_or_none()
        if scope is not None:
            scope.record(session, inputs=inputs)
        return
    from rath.session.graph import record_session

    record_session(session, inputs=inputs)
    _hold(session)


def _hold(session: Session) -> None:
    """A placed session made in plain Python holds its sandbox (see :meth:`Session.release`)."""
    if session.sandbox is not None and not workflow.in_workflow():
        from rath._runtime.sandboxes import hold

        hold(session)
