"""Watching a run from any process: its agents' transcripts, row by row. See docs/modules.md."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from temporalio.client import Client, WorkflowExecutionStatus, WorkflowQueryFailedError
from temporalio.service import RPCError

from rath.contracts.runs import COMPRESS_RUN, FORWARD, SESSION_LOOP, LoopCarry
from rath.errors import WorkerUnavailableError
from rath.runtime.run_history import (
    CLOSED_STATUS,
    StartedRun,
    agent_names,
    child_runs,
    closed_output,
    run_input,
)
from rath.runtime.run_query import (
    Stall,
    check_worker,
    describe_run,
    find_run,
    forward_agents,
    query_run,
    run_not_found,
)
from rath.session.chunk import ChunkRow
from rath.session.session import Session
from rath.session.table_ref import TableRef
from rath.store import Catalog, ChunkStore

POLL_SECONDS = 0.5
"""How often the run is asked for news."""
WAITING = "waiting for a worker"
"""The text of the ``"end"`` event of a watch that stopped because no worker answers."""
_QUERY_SECONDS = 5.0


@dataclass(frozen=True)
class RunEvent:
    """One thing that happened in a watched run."""

    kind: str
    agent: str
    text: str
    row: ChunkRow | None = None


async def watch_run(
    client: Client,
    store: ChunkStore,
    run_id: str,
    *,
    start_wait: float = 0.0,
    stop_unanswered: bool = True,
) -> AsyncIterator[RunEvent]:
    """The events of ``run_id`` from its start until it ends (each row once).

    Raises:
        RunNotFoundError: No run with that id (appeared in time).
    """
    await _started(client, run_id, start_wait)
    async for event in _Watch(client, store, stop_unanswered).events(run_id):
        yield event


class _Watch:
    """What one watch has reported so far."""

    def __init__(self, client: Client, store: ChunkStore, stop_unanswered: bool) -> None:
        self.client, self.store, self.stop_unanswered = client, store, stop_unanswered
        self.names: dict[str, str] = {}  # agent run id -> agent name
        self.shown: dict[str, int] = {}  # agent run id -> transcript rows already reported
        self.finished: set[str] = set()  # agent runs whose final rows were reported
        self.seen: set[str] = set()  # rows reported by any agent: inherited rows show once
        self.started: dict[str, StartedRun | None] = {}  # agent run id -> how it started
        self.unanswered: WorkerUnavailableError | None = None

    async def events(self, run_id: str) -> AsyncIterator[RunEvent]:
        stall = Stall()
        said = False
        while True:
            description = await describe_run(self.client, run_id)
            running = description.status == WorkflowExecutionStatus.RUNNING
            self.unanswered = None
            agents = await self._agent_runs(run_id, description.workflow_type, running)
            for agent_run, agent in agents.items():
                if agent_run not in self.names:
                    self.names[agent_run] = agent
                    yield RunEvent("agent", agent, f"{agent}: run {agent_run}")
                for row in await self._new_rows(agent_run, own=agent_run == run_id):
                    if row.digest() not in self.seen:
                        self.seen.add(row.digest())
                        yield RunEvent("row", agent, "", row)
            if not running:
                status = CLOSED_STATUS.get(description.status) if description.status else None
                yield RunEvent("end", "", status or "closed")
                return
            unanswered = self._unanswered()
            stuck = stall.stuck(unanswered is not None, description.history_length)
            if stuck and self.stop_unanswered:
                yield RunEvent("waiting", "", str(unanswered))
                yield RunEvent("end", "", WAITING)
                return
            if unanswered is not None and not self.stop_unanswered and not said:
                yield RunEvent("waiting", "", str(unanswered))
                said = True
            await asyncio.sleep(POLL_SECONDS)

    def _unanswered(self) -> WorkerUnavailableError | None:
        """Why no worker answered for the run in this poll (None: one did)."""
        return self.unanswered

    async def _agent_runs(self, run_id: str, workflow_type: str, running: bool) -> dict[str, str]:
        """The runs to show: the run itself, or a durable forward's agents so far."""
        if workflow_type == SESSION_LOOP.name:
            started = await self._started(run_id)
            return {run_id: started.input.agent_name if started and started.input else "agent"}
        if workflow_type != FORWARD.name:
            if running:
                try:  # no query of its own to ask: is a worker there at all?
                    await check_worker(self.client, run_id, timeout=_QUERY_SECONDS)
                except WorkerUnavailableError as exc:
                    self.unanswered = exc
            # a compression's one row once it ended; closing a sandbox shows only its end
            return {run_id: "compress"} if workflow_type == COMPRESS_RUN.name else {}
        try:
            return await forward_agents(
                self.client, run_id, running=running, timeout=_QUERY_SECONDS
            )
        except WorkerUnavailableError as exc:
            self.unanswered = exc
        return agent_names(await child_runs(self.client, run_id))  # what its history holds

    async def _new_rows(self, agent_run: str, *, own: bool) -> tuple[ChunkRow, ...]:
        """Rows not reported yet: from the agent's result once it ended, else so far."""
        if agent_run in self.finished:
            return ()
        description = await find_run(self.client, agent_run)
        if description is None:
            return ()  # not started yet
        closed = description.status != WorkflowExecutionStatus.RUNNING
        if closed:
            table = await self._final_table(agent_run)
        elif description.workflow_type != SESSION_LOOP.name:
            return ()  # only an agent run has a transcript so far
        else:
            try:
                carry: Any = await query_run(
                    self.client, agent_run, "progress", LoopCarry | None, timeout=_QUERY_SECONDS
                )
            except WorkerUnavailableError as exc:
                if own:
                    self.unanswered = exc
                table = await self._input_table(agent_run)  # what its history holds
            except (RPCError, WorkflowQueryFailedError):
                return ()  # between workers: asked again on the next poll
            else:
                table = carry.transcript if carry is not None else None
        rows = () if table is None else await asyncio.to_thread(self.store.load_rows, table)
        start = self.shown.get(agent_run, 0)
        if len(rows) < start:
            start = 0  # reset to an earlier point: rows already seen are skipped by digest
        self.shown[agent_run] = len(rows)
        if closed:
            self.finished.add(agent_run)
        return rows[start:]

    async def _final_table(self, agent_run: str) -> TableRef | None:
        """A closed agent run's transcript: its output, else what its record kept."""
        output = await closed_output(self.client, agent_run)
        if output is not None:
            return output.table
        started = await self._started(agent_run)
        session_id = getattr(started.input, "output_id", None) if started else None
        if session_id is None:
            return None
        catalog = Catalog(self.store.objects)
        record = await asyncio.to_thread(catalog.get, session_id)
        return TableRef.sealed(record.root) if record and record.root else None

    async def _input_table(self, agent_run: str) -> TableRef | None:
        """The transcript an agent run started from (its history has that much)."""
        started = await self._started(agent_run)
        user = getattr(started.input, "user", None) if started else None
        return user.table if isinstance(user, Session) else None

    async def _started(self, agent_run: str) -> StartedRun | None:
        if agent_run not in self.started:
            self.started[agent_run] = await run_input(self.client, agent_run)
        return self.started[agent_run]


async def _started(client: Client, run_id: str, wait: float) -> None:
    deadline = time.monotonic() + wait
    while await find_run(client, run_id) is None:
        if time.monotonic() > deadline:
            raise run_not_found(client, run_id)
        await asyncio.sleep(POLL_SECONDS)
