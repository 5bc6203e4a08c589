"""P3's workflow: fork one session to N agents, run them concurrently, merge the results."""

from __future__ import annotations

import functools
from typing import Any

from rath import flow
from rath.session import Session


class Fanout(flow.Workflow):
    """``n`` agents, each on its own fork of the input; their outputs merged in order."""

    def __init__(self, provider: flow.Provider, n: int, options: Any = None) -> None:
        super().__init__()
        self.n = n
        for i in range(n):
            setattr(self, f"agent{i}", flow.Agent("Answer.", provider=provider, options=options))

    def forward(self, session: Session) -> Session:
        outs = [getattr(self, f"agent{i}")(session.fork()) for i in range(self.n)]
        return functools.reduce(lambda a, b: a.merge(b), outs)
