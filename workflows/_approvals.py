"""Tool-call approvals as workflow state: waiting calls and their answers. See docs/modules.md."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from rath.contracts.approvals import ApprovalDecision, PendingApproval


class Approvals:
    """A run's pending approvals and the answers that came in (workflow state)."""

    def __init__(self) -> None:
        self.pending: dict[str, PendingApproval] = {}
        self._answers: dict[str, ApprovalDecision] = {}

    def check(self, decision: ApprovalDecision) -> None:
        """Refuse an answer for a call that is not waiting (the update's validator).

        Raises:
            ValueError: Naming the calls that are waiting.
        """
        if decision.call_id not in self.pending:
            waiting = ", ".join(sorted(self.pending)) or "none"
            raise ValueError(
                f"no tool call {decision.call_id!r} is waiting for approval (waiting: {waiting})"
            )

    def answer(self, decision: ApprovalDecision) -> None:
        """Record an answer; the waiting call goes on."""
        self._answers[decision.call_id] = decision

    async def ask(
        self, call_id: str, tool: str, arguments: str, agent: str, timeout: float
    ) -> ApprovalDecision | None:
        """Wait for an answer to ``call_id``; ``None`` when ``timeout`` seconds pass first."""
        self.pending[call_id] = PendingApproval(
            call_id=call_id, tool=tool, arguments=arguments, agent=agent, asked_at=workflow.now()
        )
        try:
            await workflow.wait_condition(
                lambda: call_id in self._answers, timeout=timedelta(seconds=timeout)
            )
        except TimeoutError:
            return None
        finally:
            self.pending.pop(call_id, None)
        return self._answers.pop(call_id)
