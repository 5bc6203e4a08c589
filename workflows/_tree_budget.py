"""Budgets in workflow code: an agent run's checks, a forward's tree keeper. See docs/modules.md."""

from __future__ import annotations

from datetime import datetime, timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from rath.budget import Budget, Spent, exceeded, tool_calls_left
    from rath.contracts.budget import ASK_SIGNAL, BudgetAsk, BudgetGate, BudgetGrant
    from rath.llm.chat_response import RathLLMTokenUsage

ASK_TIMEOUT = timedelta(minutes=10)


class RunBudget:
    """An agent run's side: its own limits, and the tree's answers (see docs/modules.md)."""

    def __init__(self, gate: BudgetGate | None) -> None:
        self.gate = gate
        self.grants: dict[int, BudgetGrant] = {}
        self._tree_tool_calls_left: int | None = None

    async def before_llm_call(self, seq: int, spent: Spent) -> str | None:
        """Why the next LLM call must not start, or ``None``."""
        gate = self.gate
        if gate is None:
            return None
        reason = exceeded(gate.own, spent, now=workflow.now(), deadline_at=gate.deadline_at)
        parent = workflow.info().parent
        if reason is not None or not gate.tree or parent is None:
            return reason
        ask = BudgetAsk(child_id=workflow.info().workflow_id, seq=seq, spent=spent)
        try:
            await workflow.get_external_workflow_handle(parent.workflow_id).signal(ASK_SIGNAL, ask)
        except Exception:  # the parent is gone: nobody keeps the budget
            return f"the parent run {parent.workflow_id!r}, which keeps the budget, has ended"
        try:
            await workflow.wait_condition(lambda: seq in self.grants, timeout=ASK_TIMEOUT)
        except TimeoutError:
            return f"the parent run {parent.workflow_id!r}, which keeps the budget, did not answer"
        grant = self.grants.pop(seq)
        self._tree_tool_calls_left = grant.tool_calls_left
        return grant.refused

    def spent_out(self, spent: Spent) -> bool:
        """Whether this agent's own limits already refuse any further LLM call."""
        gate = self.gate
        if gate is None:
            return False
        reason = exceeded(gate.own, spent, now=workflow.now(), deadline_at=gate.deadline_at)
        return reason is not None

    def tool_calls_left(self, spent: Spent) -> int | None:
        """How many tool calls this round may run (``None``: no limit)."""
        own = tool_calls_left(self.gate.own if self.gate else None, spent)
        limits = [n for n in (own, self._tree_tool_calls_left) if n is not None]
        return min(limits) if limits else None


class TreeKeeper:
    """A durable forward's budget for its whole tree: answers its agents' asks."""

    def __init__(self, budget: Budget, started: datetime) -> None:
        self.budget = budget
        seconds = budget.deadline_seconds
        self.deadline_at = None if seconds is None else started + timedelta(seconds=seconds)
        self._spent: dict[str, Spent] = {}

    def gate(self, own: Budget | None) -> BudgetGate:
        """The gate for a child agent with limits ``own`` of its own."""
        return BudgetGate(own=own, deadline_at=self.deadline_at, tree=True)

    def total(self) -> Spent:
        """What the tree has spent, as its agents last reported."""
        total = Spent()
        for spent in self._spent.values():
            total = total + spent
        return total

    def refusal(self) -> str | None:
        """Why no agent may start another LLM call now, or ``None``."""
        total = self.total()
        reason = exceeded(self.budget, total, now=workflow.now(), deadline_at=self.deadline_at)
        cap = self.budget.tool_calls
        if reason is None and cap is not None and total.tool_calls > cap:
            reason = f"tool_calls: {total.tool_calls} used of {cap}"
        return reason

    def answer(self, ask: BudgetAsk) -> BudgetGrant:
        """Record what ``ask``'s agent has spent, and say whether the tree has room."""
        self._spent[ask.child_id] = ask.spent
        return BudgetGrant(
            seq=ask.seq,
            refused=self.refusal(),
            tool_calls_left=tool_calls_left(self.budget, self.total()),
        )

    def finished(self, child_id: str, usage: RathLLMTokenUsage | None) -> None:
        """A child ended: its final usage replaces its last report's tokens."""
        last = self._spent.get(child_id, Spent())
        tokens = usage.total_tokens if usage is not None else last.tokens
        self._spent[child_id] = last.model_copy(update={"tokens": tokens})
