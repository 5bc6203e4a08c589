"""P3's workflow: fork one session to N agents, run them concurrently, merge the results."""

from __future__ import annotations

import functools
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

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


async def longest_tasks(address: str, run_id: str, count: int = 3) -> list[float]:
    """The ``count`` longest workflow tasks of run ``run_id`` in seconds (started to completed).

    A forward's first task makes every agent call; the SDK fails a task that runs 2 s.
    """
    history = await (await Client.connect(address)).get_workflow_handle(run_id).fetch_history()
    started, seconds = None, []
    for event in history.events:
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
            started = event.event_time.ToDatetime()
        elif event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED and started:
            seconds.append((event.event_time.ToDatetime() - started).total_seconds())
    return sorted(seconds, reverse=True)[:count]
