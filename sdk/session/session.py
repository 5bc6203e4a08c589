"""``Session``: the value that flows through ``Workflow`` modules, like a tensor through layers.

A session is a typed pydantic model: an id, a transcript *by reference* (:class:`TableRef`),
lineage, a sandbox placement and token usage. It serialises through Temporal's pydantic
converter in O(1) bytes however long the transcript is. A session returned by an agent call is
*lazy*: its id and lineage are known at once, its rows and usage once the run finishes; reading
them waits (see :meth:`Session.synchronize`).

What a session needs from whoever runs it (reading stored rows, recording lineage, holding a
sandbox, merges that call a model or read rows) it asks its :class:`SessionHost`: Rath's client
runtime in plain Python, the run's scope in workflow code. The host is a context variable
installed from above, so this module, on the lowest floor, imports nothing that runs work.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from rath.errors import ConfigError, NotReadyError, RunError, StoreError
from rath.llm._usage import TokenUsage, add_usage
from rath.llm.dto import RathLLMTokenUsage
from rath.sandbox._spec import SandboxSpec
from rath.session._diff import SessionDiff
from rath.session._graph_mode import stamped
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
from rath.session.host import CompressJob, current_host
from rath.session.merge import MERGE_SUMMARY_PROMPT, Summarize, policy_name
from rath.session.placement import NO_SANDBOX, Placement
from rath.session.table_ref import TableRef
from rath.utils.ids import new_id
from rath.utils.in_workflow import in_workflow

_PREVIEW_HEAD = 4
_PREVIEW_TAIL = 4
_PREVIEW_CHARS = 256  # per row (tool arguments: 160), as OpenRath's preview


class SessionTokenUsage(RathLLMTokenUsage):
    """OpenRath's token usage, as a session reports it (:attr:`Session.cumulative_usage`).

    A :class:`~rath.llm.dto.RathLLMTokenUsage` that compares equal to, and adds (``+``) with,
    any usage of the same three counts: OpenRath's type or Rath's ``TokenUsage``. The detail
    dicts are not kept (Rath records only the counts).
    """

    def counts(self) -> tuple[int, int, int]:
        """``(prompt_tokens, completion_tokens, total_tokens)``."""
        return (self.prompt_tokens, self.completion_tokens, self.total_tokens)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RathLLMTokenUsage | TokenUsage):
            return self.counts() == _counts(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.counts())

    def __add__(self, other: RathLLMTokenUsage | TokenUsage) -> SessionTokenUsage:
        prompt, completion, total = (
            a + b for a, b in zip(self.counts(), _counts(other), strict=True)
        )
        return SessionTokenUsage(prompt, completion, total)

    def __repr__(self) -> str:
        return (
            f"SessionTokenUsage(prompt_tokens={self.prompt_tokens}, "
            f"completion_tokens={self.completion_tokens}, total_tokens={self.total_tokens})"
        )

    @classmethod
    def of(cls, usage: TokenUsage | None) -> SessionTokenUsage | None:
        """Rath's recorded usage as OpenRath's type (``None`` stays ``None``)."""
        return None if usage is None else cls(*_counts(usage))


UsageLike = RathLLMTokenUsage | TokenUsage
"""A usage a session accepts: OpenRath's type or Rath's."""


def _counts(usage: UsageLike) -> tuple[int, int, int]:
    return (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens)


def _recorded_usage(usage: UsageLike | None) -> TokenUsage | None:
    """``usage`` as Rath records it (the three counts)."""
    if usage is None or isinstance(usage, TokenUsage):
        return usage
    prompt, completion, total = _counts(usage)
    return TokenUsage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=total)


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
        cumulative_usage: UsageLike | None = None,
        table: TableRef | None = None,
        usage: UsageLike | None = None,
        **subclass_fields: Any,
    ) -> None:
        """A session, as OpenRath builds one (``Session(chunk_table, ...)``) or Rath does.

        Args:
            chunk_table: The rows (OpenRath's); or ``table``, Rath's reference to them.
            id: A fresh id by default.
            sandbox: Rath's :class:`Placement`, or an open backend-plane handle, which is
                bound as :meth:`bind_sandbox` binds it.
            sandbox_backend: A backend to place the session on, as ``.to(sandbox_backend)``.
            lineage: OpenRath's legacy record; derived from the lineage fields by default.
            parent_session_ids: The sessions this one was made from.
            lineage_operator: What made it.
            lineage_kind: The kind of operation.
            lineage_extras: Extra ``(key, value)`` facts about it.
            cumulative_usage: Its token usage (OpenRath's or Rath's type); ``usage`` is
                Rath's name for it.
            table: Rath's reference to the rows (instead of ``chunk_table``).
            usage: Rath's name for ``cumulative_usage``.
            **subclass_fields: The fields a subclass adds (such as a run's ``LoopResult``).

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
            "usage": _recorded_usage(cumulative_usage if usage is None else usage),
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

    def _place(self, handle: Any, backend: str | None) -> None:
        """Bind ``handle``, or place the session on ``backend`` (constructor arguments)."""
        on = handle.backend.name if handle is not None else self.sandbox_backend
        if backend is not None and on not in (None, backend):
            raise ValueError(f"sandbox_backend {backend!r} does not match the sandbox's {on!r}")
        if handle is not None:
            self.bind_sandbox(handle)
        elif backend is not None and self.sandbox is None:
            self.to(backend)

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
        """OpenRath's legacy record for a loop or compress output (``None`` otherwise).

        One given to the constructor or set here wins; it is not carried through history.
        """
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

        Returns:
            ``self``.

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
        """Tokens used producing this session, as OpenRath's type (waits for a lazy session).

        Equal to a ``RathLLMTokenUsage`` or a ``TokenUsage`` with the same counts; ``usage``
        is the same counts as Rath's ``TokenUsage``, without waiting.
        """
        self.synchronize()
        return SessionTokenUsage.of(self.usage)

    @cumulative_usage.setter
    def cumulative_usage(self, value: UsageLike | None) -> None:
        self.usage = _recorded_usage(value)

    # -- branching ------------------------------------------------------------------------

    def _derive(self, **lineage: Any) -> Session:
        out = Session(sandbox=self.sandbox, **stamped(**lineage))
        out._resolve_with(
            (self,), lambda: out._settled(self.table, self._rows, sandbox=self.sandbox)
        )
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
        ours, theirs = self, other
        if (
            ours.sandbox is not None
            and theirs.sandbox is not None
            and ours.sandbox.backend != theirs.sandbox.backend
        ):
            raise ValueError(
                f"cannot merge sessions on different sandbox backends "
                f"({ours.sandbox.backend!r} and {theirs.sandbox.backend!r}); "
                "move one with `.to(...)` first"
            )
        name = policy_name(policy)
        out = Session(
            sandbox=ours.sandbox,  # self's, as in OpenRath: an unbound self stays unbound
            **stamped(
                parent_session_ids=(ours.id, theirs.id),
                lineage_kind=LineageKind.OP_MERGE,
                lineage_operator="Session.merge",
                lineage_extras=(() if name == "concat" else (("merge.policy", name),)),
            ),
        )
        host = current_host()
        if name == "summarize":
            summarize = policy if isinstance(policy, Summarize) else Summarize()
            # Both branches, one after the other: what the model reads (not a graph node).
            joined = Session(sandbox=out.sandbox)
            joined._resolve_with((ours, theirs), lambda: concatenated(joined, ours, theirs))
            host.compress(
                CompressJob(
                    user=joined,
                    agent=Session.from_agent_prompt(MERGE_SUMMARY_PROMPT),
                    provider=summarize.provider,
                    instruction=summarize.instruction,
                    name=summarize.name,
                    out=out,
                    inputs=(ours, theirs),
                    usage_from=(ours, theirs),
                )
            )
            return out
        if name == "interleave_by_time":
            host.interleave(out, ours, theirs)
        elif name == "concat":
            out._resolve_with((ours, theirs), lambda: concatenated(out, ours, theirs))
        else:
            assert callable(policy)
            function = policy

            def custom() -> Session:
                merged = function(ours, theirs)
                return out._settled(
                    merged.table,
                    merged._rows,
                    merged_usage(ours, theirs),
                    sandbox=ours.sandbox or theirs.sandbox,
                )

            out._resolve_with((ours, theirs), custom)
        host.record(out, inputs=(ours, theirs))
        return out

    def diff(self, other: Session) -> SessionDiff:
        """The rows this session has (``+``) and ``other`` has (``-``) since they parted.

        Waits for lazy sessions; in workflow code, ``await`` both first.
        """
        return SessionDiff.between(self.chunk_table.rows, other.chunk_table.rows)

    def to(self, backend: str = "local", *, spec: SandboxSpec | str | Path | Any = None) -> Session:
        """Place this session's tools on a sandbox backend; returns ``self``.

        As in OpenRath, the session first lets go of what it held: its open handle (see
        :meth:`require_sandbox`) and its hold on the previous sandbox (:meth:`close_sandbox`).

        Args:
            backend: A registered backend name (``"local"``, ``"bwrap"``, ``"docker"`` or one
                added with :func:`rath.sandbox.register_backend`). Whether it can run is
                checked where the sandbox opens, on the worker.
            spec: A :class:`SandboxSpec`, OpenRath's ``BackendSandboxSpec``, or a workspace
                directory. Outside workflow code a relative directory is resolved against the
                current directory now; ``None`` gives the session a fresh workspace under the
                data dir.

        Raises:
            SandboxUnavailableError: ``backend`` is not registered; the message lists the
                registered backends.
        """
        current_host().check_backend(backend)
        sandbox_spec = _sandbox_spec(backend, spec)
        self.close_sandbox()
        self.sandbox = Placement(spec=sandbox_spec, sandbox_id=new_id())
        current_host().hold(self)
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
        if self.sandbox is None or in_workflow():
            return False
        with contextlib.suppress(RunError):  # a failed run still let go of its sandbox
            self.synchronize()
        return current_host().release(self.sandbox, str(self.id))

    def require_sandbox(self) -> Any:
        """An open handle of the backend plane on this session's sandbox (OpenRath's).

        Opened on first use (one reference, held until :meth:`close_sandbox`) on the same
        workspace the session's tools use; ``handle.dispatch(BackendToolFilesRead(...))``.

        Raises:
            ConfigError: The session has no sandbox (``.to(...)`` first), or its handle was
                closed (both also ``RuntimeError``).
        """
        if self.sandbox is None:
            raise ConfigError(NO_SANDBOX)
        handle = self._handle
        if handle is None:
            handle = current_host().open_handle(self.sandbox).acquire()
            self._handle = handle
        elif handle.closed:
            raise ConfigError(
                "this session's sandbox handle is closed; bind an open one with "
                "session.bind_sandbox(...) or call session.close_sandbox() first"
            )
        return handle

    def bind_sandbox(self, sandbox: Any) -> Session:
        """Hold ``sandbox`` (a plane handle) as this session's sandbox; returns ``self``.

        The session is placed on the handle's backend and workspace, so its tools use the
        same files; the handle held before is released.
        """
        if sandbox is self._handle:
            return self
        held = sandbox.acquire()
        try:
            self.to(sandbox.backend.name, spec=Path(sandbox.handle))  # releases the previous
        except BaseException:
            held.release()
            raise
        self._handle = held
        return self

    def close_sandbox(self) -> Session:
        """Release this session's handle and its hold on the sandbox; returns ``self``."""
        handle, self._handle = self._handle, None
        if handle is not None:
            handle.release()
        self.release()
        return self

    def __enter__(self) -> Session:
        """Open the sandbox handle on the outermost ``with`` (a placed session, client-side)."""
        if self._cm_depth == 0 and self.sandbox is not None and not in_workflow():
            if self._handle is not None and self._handle.closed:
                self._handle = None  # someone else closed it: open a new one
            self.require_sandbox()
        self._cm_depth += 1
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the handle and release the sandbox on leaving the outermost ``with``."""
        if self._cm_depth == 0:
            return  # an exit without an enter
        self._cm_depth -= 1
        if self._cm_depth == 0:
            self.close_sandbox()

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
    """A one-row leaf stamped ``kind``/``operator`` and recorded, as a fork is.

    With graph mode off it is a plain, unrecorded session.
    """
    lineage = stamped(
        lineage_kind=kind, lineage_operator=operator, lineage_extras=(("source", operator),)
    )
    leaf = Session.from_rows([row], **lineage)
    if lineage:
        current_host().record(leaf)
    return leaf


def _sandbox_spec(backend: str, spec: SandboxSpec | str | Path | Any) -> SandboxSpec:
    """Rath's spec for ``.to(backend, spec=...)``."""
    if isinstance(spec, SandboxSpec):
        return spec.model_copy(update={"backend": backend})
    if spec is None or isinstance(spec, str | Path):
        return SandboxSpec(backend=backend, working_dir=_workspace_path(spec))
    return _from_backend_spec(backend, spec)


def _from_backend_spec(backend: str, spec: Any) -> SandboxSpec:
    """OpenRath's ``BackendSandboxSpec`` (image, env, timeout, working_dir) as Rath's spec."""
    fields: dict[str, Any] = {
        "backend": backend,
        "working_dir": _workspace_path(spec.working_dir),
        "image": spec.image,
        "env": dict(spec.env or {}),
    }
    timeout: timedelta | None = spec.timeout
    if timeout is not None:
        fields["command_timeout"] = timeout.total_seconds()
    return SandboxSpec(**fields)


def _workspace_path(spec: str | Path | None) -> str | None:
    if spec is None:
        return None
    path = Path(spec).expanduser()
    if in_workflow():  # no file system here: the worker checks when it opens the sandbox
        if not path.is_absolute():
            raise ConfigError(
                f"sandbox spec {str(spec)!r} is relative; inside workflow code pass an absolute "
                "workspace path (the worker's current directory is not yours)"
            )
        return str(path)
    path = path if path.is_absolute() else path.resolve()
    if path.exists() and not path.is_dir():
        raise ConfigError(
            f"sandbox workspace {str(path)!r} is a file, not a directory: pass a directory "
            "(it is created if missing)"
        )
    return str(path)


MergePolicy = (
    Literal["concat", "interleave_by_time", "summarize"]
    | Summarize
    | Callable[[Session, Session], Session]
)
"""What :meth:`Session.merge` accepts as ``policy``."""


def concatenated(out: Session, ours: Session, theirs: Session) -> Session:
    """``out`` as the ``concat`` of two ready sessions (rows by reference, usage summed)."""
    rows = None
    if ours._rows is not None and theirs._rows is not None:
        rows = ours._rows + theirs._rows
    table = ours.table.concat(theirs.table)
    usage = merged_usage(ours, theirs)
    return out._settled(table, rows, usage, sandbox=ours.sandbox or theirs.sandbox)


def merged_usage(ours: Session, theirs: Session) -> TokenUsage | None:
    """The usage of a merge: both branches' summed."""
    return add_usage(ours.usage, theirs.usage)
