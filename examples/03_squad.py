"""03 · Workflow composition: a Squad whose ``forward`` runs durably on Temporal.

``Squad(provider)(session)`` starts one ``rath.Forward`` workflow running ``forward`` below as
workflow code: each agent call is a child workflow (named after the agent in the Web UI), the
two coders run concurrently on forks of the plan, and the merge is deterministic workflow
code. Kill the process running the worker halfway and restart it: the run finishes without
re-running agents that had completed.

Run: ``python examples/03_squad.py`` (offline demo model unless OPENAI_API_KEY is set).
"""

from rath import flow, run_graph
from rath.session import Session


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
        b = self.coder_b(plan.fork())  # a and b run concurrently
        return self.reviewer(a.merge(b))


def main() -> None:
    squad = Squad(flow.Provider(model="gpt-4o-mini"))
    print(squad)
    task = Session.from_user_message("Write a haiku about durable workflows.").to(
        "local", spec="./work"
    )
    out = squad(task)  # returns at once; the run is in the Web UI
    print(f"started run {out.run_id}")
    print(out)  # waits for the whole tree
    print(
        "\nThe reviewer read a.merge(b): OpenRath's default merge concatenates both branches, so "
        "the task and the plan they share appear once per branch above. "
        'a.merge(b, policy="interleave_by_time") keeps shared rows once.'
    )
    print(f"tokens (all agents): {out.cumulative_usage}")
    graph = run_graph(out)
    print(graph)
    print(graph.to_mermaid())
    print("\nLook further:")
    print("  the Web UI address printed on stderr above, then the run", out.run_id)
    print(f"  .venv/bin/rath sessions show {out.id}")
    print('  .venv/bin/rath run 03_squad:Squad "another task"   (PYTHONPATH=examples)')


if __name__ == "__main__":
    main()
