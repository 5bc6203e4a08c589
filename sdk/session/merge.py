"""Merge policies: ``concat``, ``interleave_by_time``, ``summarize``. See docs/modules.md."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from rath.llm.chat_response import RathLLMTokenUsage, add_usage
from rath.llm.provider import Provider
from rath.session._diff import SessionDiff
from rath.session._graph_mode import stamped_output
from rath.session.chunk import ChunkKind, ChunkRow
from rath.session.graph.kind import LineageKind
from rath.session.host import CompressJob, current_host

# The session module imports this one: sessions are named by role here, not imported.
Session: TypeAlias = Any

MERGE_SUMMARY_PROMPT = (
    "You merge parallel branches of one agent conversation into a single account."
)
MERGE_SUMMARY_INSTRUCTION = (
    "The messages above are two branches of work on the same task, one after the other (the "
    "second may repeat the beginning they share). Merge them into one account that keeps "
    "every fact, result, decision and open question of both branches, and says where they "
    "disagree. Output plain text only, no role labels."
)


@dataclass(frozen=True, slots=True)
class Summarize:
    """The ``summarize`` merge policy, with a chosen model or instruction."""

    provider: Provider = field(default_factory=Provider)
    instruction: str = MERGE_SUMMARY_INSTRUCTION
    name: str = "merge-summary"


NAMED_POLICIES = ("concat", "interleave_by_time", "summarize")


def interleave_by_time(
    ours: Sequence[ChunkRow], theirs: Sequence[ChunkRow]
) -> tuple[ChunkRow, ...]:
    """The rows both branches share once, then each branch's turns in the order they were made."""
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


def policy_name(policy: object) -> str:
    """The policy's name: a named policy, ``summarize`` for :class:`Summarize`, else the function's.

    Raises:
        ValueError: An unknown policy name.
    """
    if isinstance(policy, Summarize):
        return "summarize"
    if isinstance(policy, str):
        if policy not in NAMED_POLICIES:
            named = ", ".join(map(repr, NAMED_POLICIES))
            raise ValueError(
                f"unknown merge policy {policy!r}; use one of {named}, "
                "Summarize(provider=...), or a function (self, other) -> Session"
            )
        return policy
    if not callable(policy):
        raise ValueError(
            f"merge policy must be a name, Summarize(...) or a function, not {policy!r}"
        )
    return getattr(policy, "__name__", "custom")


MergePolicy = (
    Literal["concat", "interleave_by_time", "summarize"] | Summarize | Callable[[Any, Any], Any]
)
"""What :meth:`Session.merge` accepts as ``policy``: a name, ``Summarize``, or a function."""


def merge_sessions(ours: Session, theirs: Session, policy: MergePolicy) -> Session:
    """:meth:`Session.merge` (see there); the output is of ``ours``'s class."""
    make = type(ours)
    if (
        ours.sandbox is not None
        and theirs.sandbox is not None
        and ours.sandbox.backend != theirs.sandbox.backend
    ):
        raise ValueError(
            "cannot merge sessions targeting different backends: "
            f"{ours.sandbox.backend!r} vs {theirs.sandbox.backend!r}; "
            "move one with `.to(...)` first"
        )
    name = policy_name(policy)
    out = stamped_output(
        make,
        ours,  # its sandbox, as in OpenRath: an unbound self stays unbound
        theirs,
        LineageKind.OP_MERGE,
        "Session.merge",
        extras=() if name == "concat" else (("merge.policy", name),),
    )
    host = current_host()
    if name == "summarize":
        summarize = policy if isinstance(policy, Summarize) else Summarize()
        # Both branches, one after the other: what the model reads (not a graph node).
        joined = make(sandbox=out.sandbox)
        joined._resolve_with((ours, theirs), lambda: concatenated(joined, ours, theirs))
        host.compress(
            CompressJob(
                user=joined,
                agent=make.from_agent_prompt(MERGE_SUMMARY_PROMPT),
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


def concatenated(out: Session, ours: Session, theirs: Session) -> Session:
    """``out`` as the ``concat`` of two ready sessions (rows by reference, usage summed)."""
    rows = None
    if ours._rows is not None and theirs._rows is not None:
        rows = ours._rows + theirs._rows
    table = ours.table.concat(theirs.table)
    usage = merged_usage(ours, theirs)
    return out._settled(table, rows, usage, sandbox=ours.sandbox or theirs.sandbox)


def merged_usage(ours: Session, theirs: Session) -> RathLLMTokenUsage | None:
    """The usage of a merge: both branches' summed."""
    return add_usage(ours.usage, theirs.usage)
