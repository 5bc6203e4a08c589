"""14 · Sessions as a lab: branch a finished Squad at the planner's round, rerun the coders.

The Squad of example 03 runs to its end. Its transcript is kept in the store, so a past
moment of it can be reused without re-running anything: ``load_session(id).fork(at=1)`` is
the task and the planner's answer (round 1), sharing those rows with the original instead
of copying them. A ``Coders`` workflow then reruns the rest on that branch with another
model, the two outcomes are compared, and one HTML page draws the whole lineage.

The same from the shell::

    rath sessions fork ID --at 1
    rath run --from ID@1 --model gpt-4.1-mini examples.14_branch_and_rerun:Coders
    rath sessions diff ID OTHER_ID
    rath sessions view ID

Run: ``python examples/14_branch_and_rerun.py`` (offline demo model unless OPENAI_API_KEY is
set; the model names are labels then).
"""

from rath import flow
from rath.cli.diff import diff_report, diff_text
from rath.cli.view import write_lineage_page
from rath.session import Session
from rath.session.persistence import load_session
from rath.store import current_catalog


class Squad(flow.Workflow):
    def __init__(self, provider: flow.Provider) -> None:
        super().__init__()
        self.planner = flow.Agent("Break the task into two parts.", provider=provider)
        self.coder_a = flow.Agent("Do part A.", provider=provider)
        self.coder_b = flow.Agent("Do part B.", provider=provider)
        self.reviewer = flow.Agent("Review and merge the work.", provider=provider)

    def forward(self, session: Session) -> Session:
        plan = self.planner(session)
        a = self.coder_a(plan.fork())
        b = self.coder_b(plan.fork())
        return self.reviewer(a.merge(b))


class Coders(flow.Workflow):
    """The Squad after its planner: what a branch at the planner's round reruns."""

    def __init__(self, provider: flow.Provider) -> None:
        super().__init__()
        self.coder_a = flow.Agent("Do part A.", provider=provider)
        self.coder_b = flow.Agent("Do part B.", provider=provider)
        self.reviewer = flow.Agent("Review and merge the work.", provider=provider)

    def forward(self, plan: Session) -> Session:
        a = self.coder_a(plan.fork())
        b = self.coder_b(plan.fork())
        return self.reviewer(a.merge(b))


def main() -> None:
    task = Session.from_user_message("Write a haiku about durable workflows.")
    first = Squad(flow.Provider(model="gpt-4o-mini"))(task.to("local", spec="./work"))
    first.synchronize()
    print(f"the Squad finished: {first!r}")

    stored = load_session(first.id)  # from the catalog, as any later process would
    plan = stored.fork(at=1)  # round 1: the task and the planner's answer
    print(f"branched at the planner's round: {plan!r} {dict(plan.lineage_extras)}")

    second = Coders(flow.Provider(model="gpt-4.1-mini"))(plan)
    second.synchronize()
    print(f"the coders reran on the branch: {second!r}\n")

    catalog = current_catalog()
    ours, theirs = catalog.get(first.id), catalog.get(second.id)
    assert ours is not None and theirs is not None
    print("\n".join(diff_text(diff_report(ours, theirs))))

    page = write_lineage_page(first.id, "lineage.html")
    print(f"\nthe lineage page: {page} (open it in a browser; no network needed)")


if __name__ == "__main__":
    main()
