"""``Session.merge``: combine two branches by ``concat``, ``interleave_by_time``, ``summarize``.

``concat`` (OpenRath's) and user functions combine references, so they run anywhere in O(1)
bytes. The other two need the rows, which workflow code cannot read:

* ``interleave_by_time`` keeps the rows both branches share once, then the *turns* each added
  (a row and the tool results answering it) in the order they were made (``ChunkRow.at``).
  Workflow code runs it as the ``rath.session.interleave`` activity; elsewhere it reads the
  chunk store directly.
* ``summarize`` has a model write one row for both branches: the compression activity with a
  merge instruction (a ``rath.Compress`` run from a client).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Literal

from temporalio import workflow

from rath.llm._provider import Provider
from rath.llm._usage import TokenUsage, add_usage
from rath.session._chunks import ChunkKind, ChunkRow
from rath.session._deferred import Deferred
from rath.session._diff import SessionDiff
from rath.session._lineage import LineageKind
from rath.session._session import Placement, Session, _record
from rath.session._table_ref import TableRef
from rath.store import ChunkStore

MERGE_SUMMARY_PROMPT = (
    "You merge parallel branches of one agent conversation into a single account."
)
MERGE_SUMMARY_INSTRUCTION = (
    "The messages above are two branches of work on the same task, one after the other (the "
    "second may repeat the beginning they share). Merge them into one account that keeps "
    "every fact, result, decision and open question of both branches, and says where they "
    "disagree. Output plain text only, no role labels."
)
INTERLEAVE_TIMEOUT = timedelta(seconds=120)


@dataclass(frozen=True, slots=True)
class Summarize:
    """The ``summarize`` merge policy, with a chosen model or instruction.

    ``a.merge(b, policy="summarize")`` is ``Summarize()``: the default provider (the offline
    demo model on the embedded default without credentials).

    Args:
        provider: Which model writes the summary.
        instruction: The final user message asking for the merged account.
        name: Names the activity or run in the Temporal UI.
    """

    provider: Provider = field(default_factory=Provider)
    instruction: str = MERGE_SUMMARY_INSTRUCTION
    name: str = "merge-summary"


MergePolicy = (
    Literal["concat", "interleave_by_time", "summarize"]
    | Summarize
    | Callable[[Session, Session], Session]
)
_NAMED = ("concat", "interleave_by_time", "summarize")


def merge_sessions(ours: Session, theirs: Session, policy: MergePolicy = "concat") -> Session:
    """What :meth:`Session.merge` does (see there)."""
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
    name = _policy_name(policy)
    out = Session(
        sandbox=ours.sandbox or theirs.sandbox,
        parent_session_ids=(ours.id, theirs.id),
        lineage_kind=LineageKind.OP_MERGE,
        lineage_operator="Session.merge",
        lineage_extras=(() if name == "concat" else (("merge.policy", name),)),
    )
    if name == "summarize":
        _summarize(ours, theirs, policy if isinstance(policy, Summarize) else Summarize(), out)
        return out
    if name == "interleave_by_time" and workflow.in_workflow():
        _interleave_in_workflow(ours, theirs, out)
    else:
        combine = _combiner(policy, name)
        _attach(out, (ours, theirs), lambda: combine(out, ours, theirs))
    _record(out, inputs=(ours, theirs))
    return out


def interleave_by_time(
    ours: Sequence[ChunkRow], theirs: Sequence[ChunkRow]
) -> tuple[ChunkRow, ...]:
    """The rows both branches share once, then each branch's turns in the order they were made.

    A turn is a row plus the tool results that follow it, so every tool call stays next to
    its results. A turn without a time (a hand-built row) takes its branch's previous turn's
    time; ties, and rows made at the same time, keep ``ours`` first. Each branch's own order
    is never changed.
    """
    common = SessionDiff.between(ours, theirs).common
    a, b = _turns(ours[common:]), _turns(theirs[common:])
    merged: list[list[ChunkRow]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        if b[j][0] < a[i][0]:
            merged.append(b[j][1])
            j += 1
        else:
            merged.append(a[i][1])
            i += 1
    merged += [turn for _, turn in a[i:]] + [turn for _, turn in b[j:]]
    return (*ours[:common], *(row for turn in merged for row in turn))


def interleave_tables(store: ChunkStore, ours: TableRef, theirs: TableRef) -> tuple[str, int]:
    """Interleave two stored tables; returns the sealed result's digest and its row count."""
    rows = interleave_by_time(store.load_rows(ours), store.load_rows(theirs))
    return store.seal(TableRef.inline(*rows)), len(rows)


def _turns(rows: Sequence[ChunkRow]) -> list[tuple[float, list[ChunkRow]]]:
    turns: list[tuple[float, list[ChunkRow]]] = []
    last = float("-inf")
    for row in rows:
        if row.kind is ChunkKind.TOOL_RESULT and turns:
            turns[-1][1].append(row)
            continue
        last = row.at if row.at is not None else last
        turns.append((last, [row]))
    return turns


def _policy_name(policy: MergePolicy) -> str:
    if isinstance(policy, Summarize):
        return "summarize"
    if isinstance(policy, str):
        if policy not in _NAMED:
            raise ValueError(
                f"unknown merge policy {policy!r}; use one of {', '.join(map(repr, _NAMED))}, "
                "Summarize(provider=...), or a function (self, other) -> Session"
            )
        return policy
    return getattr(policy, "__name__", "custom")


Combiner = Callable[[Session, Session, Session], Session]


def _combiner(policy: MergePolicy, name: str) -> Combiner:
    if name == "concat":
        return _concat
    if name == "interleave_by_time":
        return _interleave_here
    assert callable(policy) and not isinstance(policy, Summarize)
    function = policy

    def custom(out: Session, ours: Session, theirs: Session) -> Session:
        merged = function(ours, theirs)
        return out._settled(
            merged.table, merged._rows, _usage(ours, theirs), sandbox=_placed(ours, theirs)
        )

    return custom


def _concat(out: Session, ours: Session, theirs: Session) -> Session:
    rows = None
    if ours._rows is not None and theirs._rows is not None:
        rows = ours._rows + theirs._rows
    table = ours.table.concat(theirs.table)
    return out._settled(table, rows, _usage(ours, theirs), sandbox=_placed(ours, theirs))


def _interleave_here(out: Session, ours: Session, theirs: Session) -> Session:
    from rath.store import current_store

    rows = interleave_by_time(ours.chunk_table.rows, theirs.chunk_table.rows)
    table = TableRef.sealed(current_store().seal(TableRef.inline(*rows)))
    return out._settled(table, rows, _usage(ours, theirs), sandbox=_placed(ours, theirs))


def _attach(out: Session, sources: tuple[Session, Session], compute: Callable[[], Session]) -> None:
    """Make ``out`` the (lazy, if a source is) result of ``compute``."""
    if any(source.pending for source in sources):
        out.attach_pending(Deferred(sources, compute))
        return
    for source in sources:
        source.synchronize()
    done = compute()
    out.table, out.usage, out._rows = done.table, done.usage, done._rows


def _interleave_in_workflow(ours: Session, theirs: Session, out: Session) -> None:
    from rath._runtime.scope import current_scope
    from rath.activities.session import InterleaveArgs, InterleaveResult

    scope = current_scope()
    shell = out.model_copy()

    async def run() -> Session:
        await ours.ready()
        await theirs.ready()
        result: InterleaveResult = await workflow.execute_activity(
            "rath.session.interleave",
            InterleaveArgs(ours=ours.table, theirs=theirs.table),
            result_type=InterleaveResult,
            start_to_close_timeout=INTERLEAVE_TIMEOUT,
            summary=f"merge · interleave_by_time · session {shell.id.hex[:8]}",
        )
        table = TableRef.sealed(result.table)
        return shell._settled(table, None, _usage(ours, theirs), sandbox=_placed(ours, theirs))

    out.attach_pending(scope.spawn(f"merge-{out.id.hex[:12]}", run()))


def _summarize(ours: Session, theirs: Session, policy: Summarize, out: Session) -> None:
    from rath.session._compress import start_compress

    # Both branches, one after the other: what the model reads (not a session of the graph).
    joined = Session(sandbox=out.sandbox)
    _attach(joined, (ours, theirs), lambda: _concat(joined, ours, theirs))
    start_compress(
        joined,
        Session.from_agent_prompt(MERGE_SUMMARY_PROMPT),
        provider=policy.provider,
        instruction=policy.instruction,
        name=policy.name,
        out=out,
        inputs=(ours, theirs),
        usage_from=(ours, theirs),
    )


def _placed(ours: Session, theirs: Session) -> Placement | None:
    """The merge's placement once both are ready (``ours`` first, as ``merge`` documents)."""
    return ours.sandbox or theirs.sandbox


def _usage(ours: Session, theirs: Session) -> TokenUsage | None:
    return add_usage(ours.usage, theirs.usage)
