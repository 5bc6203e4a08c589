"""12 · Budgets: one token budget shared by a whole tree of agents.

Run it: ``python examples/12_budgets.py``. ``with_budget`` gives a durable workflow one budget
(tokens, tool calls, a deadline) for every agent it starts: before each LLM call an agent asks
the parent run, which knows what the whole tree spent, so agents running in parallel share it.
Past the limit the run ends with a ``BudgetExceeded`` status; ``BudgetExceededError`` carries
the transcript so far, so nothing is lost. A single agent takes ``budget=Budget(...)`` (or
OpenRath's ``Provider(budget_total_tokens=..., on_budget_exceeded=...)``).
"""

from rath import Budget, flow
from rath.errors import BudgetExceededError
from rath.session import Session


class Panel(flow.Workflow):
    """Three reviewers in parallel, then a chair who sums up."""

    def __init__(self, provider: flow.Provider) -> None:
        super().__init__()
        self.first = flow.Agent("Review for correctness.", provider=provider)
        self.second = flow.Agent("Review for clarity.", provider=provider)
        self.third = flow.Agent("Review for risk.", provider=provider)
        self.chair = flow.Agent("Sum up the reviews.", provider=provider)

    def forward(self, session: Session) -> Session:
        reviews = self.first(session.fork()).merge(self.second(session.fork()))
        return self.chair(reviews.merge(self.third(session.fork())))


def main() -> None:
    panel = Panel(flow.Provider(model="gpt-4o-mini"))
    proposal = Session.from_user_message("Proposal: rewrite the billing service in a weekend.")
    print(
        panel.with_budget(Budget(total_tokens=100_000))(proposal)
        .chunk_table.rows[-1]
        .payload["content"]
    )
    try:
        panel.with_budget(total_tokens=150)(proposal).synchronize()
    except BudgetExceededError as exc:
        print(f"stopped: {exc.reason}")
        assert exc.session is not None
        print(
            f"the transcript so far has {len(exc.session.chunk_table.rows)} rows, "
            f"{exc.session.usage.total_tokens if exc.session.usage else 0} tokens used"
        )


if __name__ == "__main__":
    main()
