"""How far a round's tool calls got: what a cancelled round keeps. See docs/modules.md."""

from __future__ import annotations

from dataclasses import dataclass, field

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from rath.contracts.llm import ToolCallPlan
    from rath.session.chunk import ChunkRow, tool_feedback_chunk
    from rath.tools.bodies import error_body

Row = str | ChunkRow
CANCELLED = "cancelled"


@dataclass
class RoundProgress:
    """The results in so far, and the calls a cancel caught mid-way (workflow state)."""

    calls: tuple[ToolCallPlan, ...]
    rows: dict[int, Row] = field(default_factory=dict)
    cut: dict[int, str] = field(default_factory=dict)
    """Calls running when the run was cancelled: call index to idempotency key."""
    asking: set[int] = field(default_factory=set)
    """Calls waiting for a person's approval when the run was cancelled."""

    def closing_rows(self) -> list[Row]:
        """One row per call, in call order: its result, else why it has none."""
        return [self.rows.get(call.index) or self._unanswered(call) for call in self.calls]

    def report(self) -> str:
        """The calls a cancel caught, on one line (empty when it caught none)."""
        parts = []
        cut = [c for c in self.calls if c.index in self.cut and c.index not in self.rows]
        if cut:
            keys = ", ".join(f"{c.name} ({c.id}) key {self.cut[c.index]}" for c in cut)
            parts.append(f"in flight, outcome unknown: {keys}")
        asking = [c for c in self.calls if c.index in self.asking]
        if asking:
            calls = ", ".join(f"{c.name} ({c.id})" for c in asking)
            parts.append(f"waiting for approval, not run: {calls}")
        return "; ".join(parts)

    def _unanswered(self, call: ToolCallPlan) -> ChunkRow:
        if call.index in self.cut:
            message = (
                f"the run was cancelled while {call.name!r} ran (idempotency key "
                f"{self.cut[call.index]}); whether its effect happened is unknown"
            )
        elif call.index in self.asking:
            message = (
                f"the run was cancelled while {call.name!r} waited for approval; it did not run"
            )
        else:
            message = f"the run was cancelled before {call.name!r} ran; it did not run"
        return tool_feedback_chunk(call.id, call.name, error_body(CANCELLED, message))
