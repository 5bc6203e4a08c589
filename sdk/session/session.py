"""``Session``: the value that flows through ``Workflow`` modules, like a tensor through layers.

Sessions are lazy pydantic values; what needs work they ask their host (docs/design.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from rath.errors import NotReadyError, StoreError
from rath.llm.chat_response import RathLLMTokenUsage
from rath.session._diff import SessionDiff
from rath.session._graph_mode import stamped
from rath.session.branch import branch_fields
from rath.session.chunk import (
    ChunkKind,
    ChunkRow,
    ChunkTable,
    format_chunk_row_brief,
    system_text_chunk,
    user_text_chunk,
)
from rath.session.deferred import Deferred, PendingResult
from rath.session.graph.kind import LineageKind
from rath.session.graph.legacy import SessionLineage
from rath.session.host import current_host
from rath.session.merge import MergePolicy, merge_sessions
from rath.session.placement import Placeable, Placement
from rath.session.table_ref import TableRef
from rath.session.usage import SessionTokenUsage, UsageLike, recorded_usage
from rath.utils.ids import new_id
from rath.utils.in_workflow import in_workflow

_PREVIEW_HEAD = 4
_PREVIEW_TAIL = 4
_PREVIEW_CHARS = 256  # per row (tool arguments: 160), as OpenRath's preview


class Session(Placeable, BaseModel):
    """A transcript plus lineage, sandbox placement and usage (OpenRath-compatible API)."""

    model_config = ConfigDict(validate_assignment=False)

    id: UUID = Field(default_factory=new_id)
    table: TableRef = TableRef()
    parent_session_ids: tuple[UUID, ...] = ()
    lineage_kind: LineageKind = LineageKind.UNKNOWN
    lineage_operator: str = "implicit"
    lineage_extras: tuple[tuple[str, Any], ...] = ()
    sandbox: Placement | None = None
    usage: RathLLMTokenUsage | None = None

    _pending: PendingResult[Session] | None = PrivateAttr(default=None)
    _rows: tuple[ChunkRow, ...] | None = PrivateAttr(default=None)
    _table: ChunkTable | None = PrivateAttr(default=None)
    _run_id: str | None = PrivateAttr(default=None)
    _handle: Any = PrivateAttr(default=None)
    _lineage: SessionLineage | None = PrivateAttr(default=None)
    _cm_depth: int = PrivateAttr(default=0)

    # -- construction ---------------------------------------------------------------------

    def __init__(
        self,
        chunk_table: ChunkTable | None = None,
        *,
        id: UUID | None = None,
        sandbox: Any = None,
        sandbox_backend: str | None = None,
        lineage: SessionLineage | None = None,
        parent_session_ids: tuple[UUID, ...] = (),
        lineage_operator: str = "implicit",
        lineage_kind: LineageKind = LineageKind.UNKNOWN,
        lineage_extras: tuple[tuple[str, Any], ...] = (),
        cumulative_usage: RathLLMTokenUsage | None = None,
        table: TableRef | None = None,
        usage: RathLLMTokenUsage | None = None,
        **subclass_fields: Any,
    ) -> None:
        """A session, as OpenRath builds one (``Session(chunk_table, ...)``) or Rath does.

        Raises:
            TypeError: An unknown keyword, or both spellings of the rows or of the usage.
            ValueError: ``sandbox_backend`` is not the backend ``sandbox`` is on.
        """
        unknown = sorted(set(subclass_fields) - set(type(self).model_fields))
        if unknown:
            raise TypeError(f"{type(self).__name__}() got unexpected keyword arguments {unknown}")
        if chunk_table is not None and table is not None:
            raise TypeError("Session takes chunk_table or table, not both")
        if cumulative_usage is not None and usage is not None:
            raise TypeError("Session takes cumulative_usage or usage, not both")
        handle = sandbox if hasattr(sandbox, "acquire") else None  # a plane handle
        fields: dict[str, Any] = {
            "id": id,
            "table": TableRef.inline(*chunk_table.rows) if chunk_table is not None else table,
            "sandbox": None if handle is not None else sandbox,
            "usage": recorded_usage(cumulative_usage if usage is None else usage),
        }
        super().__init__(
            **{name: value for name, value in fields.items() if value is not None},
            **subclass_fields,
            parent_session_ids=parent_session_ids,
            lineage_operator=lineage_operator,
            lineage_kind=lineage_kind,
            lineage_extras=lineage_extras,
        )
        self._lineage = lineage
        if chunk_table is not None:
            self._rows, self._table = chunk_table.rows, chunk_table
        self._place(handle, sandbox_backend)

    # Stored sessions (histories, catalogs) validate straight through pydantic, which
    # ignores keys of older versions; only calls from code go through this signature.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

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
                f"Session.create: unknown kind {kind!r} (use 'user', 'system' or 'empty')"
            )
        if kind == "user":
            return stamped_leaf(user_text_chunk(text), LineageKind.LEAF_USER, "Session.create")
        return stamped_leaf(system_text_chunk(text), LineageKind.LEAF_SYSTEM, "Session.create")

    # -- lazy results ---------------------------------------------------------------------

    @property
    def pending(self) -> bool:
        """True while this session is the unfinished result of a run."""
        return self._pending is not None and not self._pending.done()

    @property
    def lineage(self) -> SessionLineage | None:
        """OpenRath's legacy record for a loop or compress output (``None`` otherwise)."""
        if self._lineage is not None:
            return self._lineage
        runs = (LineageKind.OP_SESSION_LOOP, LineageKind.OP_SESSION_COMPRESS)
        if self.lineage_kind not in runs or len(self.parent_session_ids) != 2:
            return None
        user, agent = self.parent_session_ids
        return SessionLineage(user, agent, self.lineage_operator)

    @lineage.setter
    def lineage(self, value: SessionLineage | None) -> None:
        self._lineage = value

    @property
    def sandbox_backend(self) -> str | None:
        """The backend this session is placed on (OpenRath's target), or ``None``."""
        return None if self.sandbox is None else self.sandbox.backend

    @property
    def run_id(self) -> str | None:
        """The workflow id of the run that produced this session, if it is a run's result."""
        return self._run_id

    def attach_pending(self, pending: PendingResult[Session]) -> None:
        """Make this session the lazy result of ``pending`` (used by the runtime)."""
        self._pending = pending
        # A derived session (fork/merge of a lazy one) was not produced by that run.
        self._run_id = None if isinstance(pending, Deferred) else pending.run_id

    def synchronize(self) -> Session:
        """Wait for a lazy session's run, then publish its rows, usage and extras.

        Raises:
            RunFailedError: The run failed (the message names its workflow id).
            NotReadyError: Inside workflow code, the run has not finished yet.
        """
        pending = self._pending
        if pending is None:
            return self
        if in_workflow() and not pending.done():
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
        on_read = getattr(pending, "on_read", None)
        if on_read is not None:  # OpenRath's budget callback sees the caller's session
            on_read(self)
        return self

    def __await__(self) -> Any:
        return self._await().__await__()

    async def ready(self) -> Session:
        """Wait until the run behind a lazy session finished, without loading its rows."""
        pending = self._pending
        waiter = getattr(pending, "wait", None)
        if waiter is not None:
            await waiter()
        return self.synchronize()

    async def _await(self) -> Session:
        await self.ready()
        if in_workflow() and self._rows is None and self.table.inline_rows() is None:
            self._rows = await current_host().read_rows(self.table)
        return self

    # -- content --------------------------------------------------------------------------

    @property
    def chunk_table(self) -> ChunkTable:
        """The transcript rows (waits for a lazy session)."""
        self.synchronize()
        if self._rows is None:
            inline = self.table.inline_rows()
            try:
                self._rows = inline if inline is not None else current_host().load_rows(self.table)
            except StoreError as exc:
                raise type(exc)(f"session {self.id}: {exc}") from None
        # One object while the rows stay the same (OpenRath's tests compare by identity).
        if self._table is None or self._table.rows is not self._rows:
            self._table = ChunkTable.model_construct(rows=self._rows)
        return self._table

    @chunk_table.setter
    def chunk_table(self, value: ChunkTable) -> None:
        """Replace the rows (held inline); as in OpenRath, a pending run's result still wins."""
        self.table = TableRef.inline(*value.rows)
        self._rows, self._table = value.rows, value

    @property
    def cumulative_usage(self) -> SessionTokenUsage | None:
        """Tokens used producing this session, as OpenRath's type (waits for a lazy session)."""
        self.synchronize()
        return SessionTokenUsage.of(self.usage)

    @cumulative_usage.setter
    def cumulative_usage(self, value: UsageLike | None) -> None:
        self.usage = recorded_usage(value)

    # -- branching ------------------------------------------------------------------------

    def _derive(self, **lineage: Any) -> Session:
        if self.pending:
            out = Session(sandbox=self.sandbox, **stamped(**lineage))
            out._resolve_with(
                (self,), lambda: out._settled(self.table, self._rows, sandbox=self.sandbox)
            )
        else:  # the rows are here: share them now (a fan-out forks a thousand times at once)
            self.synchronize()  # a finished run's result is published into self first
            out = Session(sandbox=self.sandbox, table=self.table, **stamped(**lineage))
            out._rows = self._rows
        current_host().record(out, inputs=(self,))
        return out

    def _resolve_with(self, sources: tuple[Session, ...], compute: Callable[[], Session]) -> None:
        """Make this session the result of ``compute``: lazily if a source is pending."""
        if any(source.pending for source in sources):
            self.attach_pending(Deferred(sources, compute))
            return
        for source in sources:
            source.synchronize()
        done = compute()
        self.table, self.usage, self._rows = done.table, done.usage, done._rows

    def _settled(
        self,
        table: TableRef,
        rows: tuple[ChunkRow, ...] | None,
        usage: RathLLMTokenUsage | None = None,
        *,
        sandbox: Placement | None = None,
    ) -> Session:
        """The result a :class:`Deferred` publishes into this (eagerly built) session."""
        update: dict[str, Any] = {"table": table, "usage": usage}
        if sandbox is not None:
            update["sandbox"] = sandbox
        result = self.model_copy(update=update)
        result._rows = rows
        return result

    def fork(self, at: int | None = None) -> Session:
        """A new session with the same rows (shared by reference) and sandbox; parent = self.

        Raises:
            ValueError: ``at`` is out of range (the message names the number of rounds).
        """
        if at is not None:
            rows = self.chunk_table.rows
            fields, kept = branch_fields(self.id, self.table, rows, at)
            out = Session(sandbox=self.sandbox, **fields)
            out._rows = kept
            current_host().record(out, inputs=(self,))
            return out
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

        Raises:
            ValueError: An unknown policy, or sessions on different sandbox backends.
        """
        out: Session = merge_sessions(self, other, policy)
        return out

    def diff(self, other: Session) -> SessionDiff:
        """The rows this session has (``+``) and ``other`` has (``-``) since they parted."""
        return SessionDiff.between(self.chunk_table.rows, other.chunk_table.rows)

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
                lines.append("  " + format_chunk_row_brief(index, row, max_payload=_PREVIEW_CHARS))
        return "\n".join(lines)

    def __str__(self) -> str:
        """The transcript preview; unlike ``repr``, this waits for a lazy session.

        Raises:
            RunFailedError: The run behind a lazy session failed (so ``print(out)`` in a
                script fails loudly; ``repr`` shows the error instead of raising it).
        """
        if self._pending is not None and not in_workflow():
            self.synchronize()
        return repr(self)

    def rows_of_kind(self, kind: ChunkKind) -> tuple[ChunkRow, ...]:
        """The rows of one kind, in order (waits for a lazy session)."""
        return tuple(row for row in self.chunk_table.rows if row.kind is kind)


def stamped_leaf(row: ChunkRow, kind: LineageKind, operator: str) -> Session:
    """A one-row leaf stamped ``kind``/``operator`` and recorded, as a fork is."""
    lineage = stamped(
        lineage_kind=kind, lineage_operator=operator, lineage_extras=(("source", operator),)
    )
    leaf = Session.from_rows([row], **lineage)
    if lineage:
        current_host().record(leaf)
    return leaf
