"""Two scripts' code for the routing tests: each process registers only the class it runs.

Run as ``python -c "import code_app; code_app.main('RoutedPair', BASE_URL)"``: it starts the class's
durable forward on the embedded default, prints the run's workflow id, waits and prints the
reply.
"""

from __future__ import annotations

from rath import flow
from rath.contracts.runs import LoopOptions
from rath.session import Session

OPTIONS = LoopOptions(llm_retry_base_seconds=0.1, llm_heartbeat_seconds=2)


class RoutedPair(flow.Workflow):
    """One agent, asked "pair"."""

    def __init__(self, provider: flow.Provider) -> None:
        super().__init__()
        self.first = flow.Agent("You pair.", provider=provider, options=OPTIONS)

    def forward(self, session: Session) -> Session:
        return self.first(session)


class RoutedSolo(flow.Workflow):
    """One agent, asked "solo"."""

    def __init__(self, provider: flow.Provider) -> None:
        super().__init__()
        self.only = flow.Agent("You are alone.", provider=provider, options=OPTIONS)

    def forward(self, session: Session) -> Session:
        return self.only(session)


def main(class_name: str, base_url: str) -> None:
    """Run ``class_name`` on a message naming it, against the fake model at ``base_url``."""
    cls = {"RoutedPair": RoutedPair, "RoutedSolo": RoutedSolo}[class_name]
    provider = flow.Provider(model="fake-model", base_url=base_url)  # keyless: no vault entry
    message = {"RoutedPair": "pair", "RoutedSolo": "solo"}[class_name]
    out = cls(provider)(Session.from_user_message(message))
    print(out.run_id, flush=True)
    print(out.chunk_table.rows[-1].payload["content"], flush=True)
