"""13 · A trading desk: nested multi-agent workflows, run durably as one tree.

OpenRath's ``trading_agents`` written afresh for Rath. ``TradingDesk`` nests three modules
and one agent, and ``forward`` wires them:

* ``AnalystTeam``: market, news and fundamentals analysts, concurrently on forks of the
  request, merged;
* ``Debate``: a bull and a bear researcher answer each other for ``rounds`` rounds;
* ``trader``: turns the debate into a trade plan;
* ``RiskReview``: aggressive, conservative and neutral risk analysts review the plan
  concurrently, and the risk manager gives the final decision.

One call starts one ``rath.Forward`` run; each agent call (twelve with two debate rounds)
is a child workflow named after its agent, so the Web UI shows the tree of named runs. Kill
the worker halfway and start it again: finished agents are not re-run.

Run: ``python examples/13_trading_desk.py --ticker NVDA [--as-of 2026-11-24] [--rounds 2]``.
Offline it uses Rath's scripted demo model; set ``OPENAI_API_KEY`` (or ``OPENAI_BASE_URL``)
and optionally ``RATH_MODEL`` for a real model.
"""

import argparse
import os

from rath import flow, run_graph
from rath.session import ChunkKind, LineageKind, Session

ANALYST = "You are the {role} analyst of a trading desk. Report on {focus} in five bullets."


class AnalystTeam(flow.Workflow):
    def __init__(self, provider: flow.Provider) -> None:
        super().__init__()
        self.market = flow.Agent(
            ANALYST.format(role="market", focus="price action and volume"), provider
        )
        self.news = flow.Agent(ANALYST.format(role="news", focus="recent news"), provider)
        self.fundamentals = flow.Agent(
            ANALYST.format(role="fundamentals", focus="earnings and valuation"), provider
        )

    def forward(self, session: Session) -> Session:
        market = self.market(session.fork())
        news = self.news(session.fork())
        fundamentals = self.fundamentals(session.fork())
        merged = market.merge(news, policy="interleave_by_time")
        return merged.merge(fundamentals, policy="interleave_by_time")


class Debate(flow.Workflow):
    def __init__(self, provider: flow.Provider, rounds: int) -> None:
        super().__init__()
        self.rounds = rounds
        self.bull = flow.Agent("You argue for buying. Answer the bear's last point.", provider)
        self.bear = flow.Agent("You argue against buying. Answer the bull's last point.", provider)

    def forward(self, session: Session) -> Session:
        for _ in range(self.rounds):
            session = self.bear(self.bull(session))
        return session


class RiskReview(flow.Workflow):
    def __init__(self, provider: flow.Provider) -> None:
        super().__init__()
        self.aggressive = flow.Agent("Review the plan as an aggressive risk analyst.", provider)
        self.conservative = flow.Agent("Review the plan as a conservative risk analyst.", provider)
        self.neutral = flow.Agent("Review the plan as a neutral risk analyst.", provider)
        self.manager = flow.Agent(
            "You are the risk manager. Give the final decision: BUY, HOLD or SELL, and why.",
            provider,
        )

    def forward(self, session: Session) -> Session:
        reviews = [agent(session.fork()) for agent in (self.aggressive, self.conservative)]
        neutral = self.neutral(session.fork())
        merged = reviews[0].merge(reviews[1], policy="interleave_by_time")
        return self.manager(merged.merge(neutral, policy="interleave_by_time"))


class TradingDesk(flow.Workflow):
    def __init__(self, provider: flow.Provider, rounds: int = 2) -> None:
        super().__init__()
        self.analysts = AnalystTeam(provider)
        self.debate = Debate(provider, rounds)
        self.trader = flow.Agent(
            "You are the trader. Write a trade plan from the debate.", provider
        )
        self.risk = RiskReview(provider)

    def forward(self, session: Session) -> Session:
        reports = self.analysts(session)
        argued = self.debate(reports)
        plan = self.trader(argued)
        return self.risk(plan)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticker", default="NVDA")
    parser.add_argument("--as-of", default="2026-11-24")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    desk = TradingDesk(
        flow.Provider(model=os.environ.get("RATH_MODEL", "gpt-4o-mini")), args.rounds
    )
    print(desk)
    request = Session.from_user_message(
        f"Decide whether to buy, hold or sell {args.ticker} as of {args.as_of}."
    )
    out = desk(request)  # one durable run; returns at once
    print(f"started run {out.run_id}")
    rows = out.chunk_table.rows  # waits for the whole tree
    decision = next(r for r in reversed(rows) if r.kind is ChunkKind.ASSISTANT)
    print(f"\nfinal decision (risk manager):\n{decision.payload.get('content')}")
    graph = run_graph(out)
    calls = [
        node.agent
        for node in graph.nodes
        if node.agent and node.lineage_kind is LineageKind.OP_SESSION_LOOP
    ]
    print(f"\n{len(calls)} agent runs: {', '.join(calls)}")
    print(f"tokens (the whole desk): {out.cumulative_usage}")
    print(graph.to_mermaid())


if __name__ == "__main__":
    main()
