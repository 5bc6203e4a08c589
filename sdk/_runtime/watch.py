"""Watching a run from any process: its agents' transcripts as they grow, row by row.

Used by ``rath run`` and ``rath sessions follow``. It only reads: the run's queries (``graph``
for a durable forward's agents, ``progress`` for each agent's transcript so far, an agent's
result once it ended) and the rows those reference in the chunk store. Polling, not streaming,
so it works for any run, started from any process, with or without ``on_event``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from temporalio.client import Client, WorkflowExecutionStatus, WorkflowFailureError
from temporalio.service import RPCError, RPCStatusCode

from rath._runtime.run_query import query_run, run_not_found
from rath.contracts import SESSION_LOOP, LoopCarry
from rath.errors import WorkerUnavailableError
from rath.session._chunks import ChunkRow
from rath.session._lineage import LineageKind
from rath.session._session import Session
from rath.session.graph import SessionGraph
from rath.store import ChunkStore

POLL_SECONDS = 0.5
"""How often the run is asked for news."""
_QUERY_SECONDS = 5.0


@dataclass(frozen=True)
class RunEvent:
    """One thing that happened in a watched run.

    Attributes:
        kind: ``"agent"`` (an agent run was scheduled), ``"row"`` (a transcript row was
            added), ``"end"`` (the run finished; ``text`` is its status) or ``"waiting"`` (no
            worker answers; ``text`` says which to start).
        agent: The agent the event belongs to (``""`` for the run itself).
        text: What to show.
        row: The transcript row of a ``"row"`` event.
    """

    kind: str
    agent: str
    text: str
    row: ChunkRow | None = None


async def watch_run(
    client: Client, store: ChunkStore, run_id: str, *, start_wait: float = 0.0
) -> AsyncIterator[RunEvent]:
    """The events of ``run_id`` from its start until it ends (each row once).

    Args:
        client: A client with Rath's plugin.
        store: Where the rows live.
        run_id: The workflow id.
        start_wait: Seconds to wait for a run just asked to start (it starts once its
            inputs are ready); ``0`` for a run that should exist already.

    Raises:
        RunNotFoundError: No run with that id (appeared in time).
    """
    await _started(client, run_id, start_wait)
    async for event in _Watch(client, store).events(run_id):
        yield event


class _Watch:
    """What one watch has reported so far."""

    def __init__(self, client: Client, store: ChunkStore) -> None:
        self.client, self.store = client, store
        self.names: dict[str, str] = {}  # agent run id -> agent name
        self.shown: dict[str, int] = {}  # agent run id -> transcript rows already reported
        self.finished: set[str] = set()  # agent runs whose final rows were reported
        self.seen: set[str] = set()  # rows reported by any agent: inherited rows show once

    async def events(self, run_id: str) -> AsyncIterator[RunEvent]:
        handle = self.client.get_workflow_handle(run_id)
        warned = False
        while True:
            description = await handle.describe()
            try:
                agents = await _agent_runs(self.client, run_id, description.workflow_type)
                warned = False
            except WorkerUnavailableError as exc:
                if not warned:
                    yield RunEvent("waiting", "", str(exc))
                    warned = True
                agents = {}
            for agent_run, agent in agents.items():
                if agent_run not in self.names:
                    self.names[agent_run] = agent
                    yield RunEvent("agent", agent, f"{agent}: run {agent_run}")
                for row in await self._new_rows(agent_run):
                    if row.digest() not in self.seen:
                        self.seen.add(row.digest())
                        yield RunEvent("row", agent, "", row)
            if description.status != WorkflowExecutionStatus.RUNNING:
                status = description.status.name.lower() if description.status else "closed"
                yield RunEvent("end", "", status)
                return
            await asyncio.sleep(POLL_SECONDS)

    async def _new_rows(self, agent_run: str) -> tuple[ChunkRow, ...]:
        """Rows not reported yet: from the agent's result once it ended, else so far."""
        if agent_run in self.finished:
            return ()
        handle = self.client.get_workflow_handle(agent_run, result_type=Session)
        table = None
        try:
            closed = (await handle.describe()).status != WorkflowExecutionStatus.RUNNING
            if closed:
                table = (await handle.result()).table
            else:
                carry: Any = await query_run(
                    self.client, agent_run, "progress", LoopCarry | None, timeout=_QUERY_SECONDS
                )
                table = carry.transcript if carry is not None else None
        except (WorkerUnavailableError, RPCError):
            return ()  # not started yet, or between workers: asked again on the next poll
        except WorkflowFailureError:
            closed = True  # the run's own end event says how it failed
        rows = () if table is None else await asyncio.to_thread(self.store.load_rows, table)
        start = self.shown.get(agent_run, 0)
        self.shown[agent_run] = max(start, len(rows))
        if closed:
            self.finished.add(agent_run)
        return rows[start:]


async def _started(client: Client, run_id: str, wait: float) -> None:
    deadline = time.monotonic() + wait
    while True:
        try:
            await client.get_workflow_handle(run_id).describe()
            return
        except RPCError as exc:
            if exc.status is not RPCStatusCode.NOT_FOUND:
                raise
            if time.monotonic() > deadline:
                raise run_not_found(client, run_id) from None
        await asyncio.sleep(POLL_SECONDS)


async def _agent_runs(client: Client, run_id: str, workflow_type: str) -> dict[str, str]:
    """The agent runs to show: the run itself, or a durable forward's agents so far."""
    if workflow_type == SESSION_LOOP.name:
        return {run_id: "agent"}
    graph: SessionGraph = await query_run(
        client, run_id, "graph", SessionGraph, timeout=_QUERY_SECONDS
    )
    return {
        node.run_id: node.agent or "agent"
        for node in graph.nodes
        if node.lineage_kind is LineageKind.OP_SESSION_LOOP and node.run_id
    }
