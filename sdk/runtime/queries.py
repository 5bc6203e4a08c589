"""Asking a run about itself from the client: its session graph."""

from __future__ import annotations

import logging

from temporalio.client import Client

from rath.contracts.runs import FORWARD, SESSION_LOOP
from rath.errors import WorkerUnavailableError
from rath.runtime.run_history import history_graph
from rath.runtime.run_query import describe_run, query_run, run_id_of
from rath.runtime.runtime import get_runtime
from rath.session.graph import SessionGraph
from rath.session.session import Session

logger = logging.getLogger("rath.runtime")
_ASKED = (SESSION_LOOP.name, FORWARD.name)
"""The run types that answer a ``graph`` query."""
_DESCRIBE_SECONDS = 10.0
"""Room beyond the query's own timeout for describing the run and reading its history."""


def run_graph(run: Session | str, *, timeout: float = 30.0) -> SessionGraph:
    """The session graph of a run (a ``rath.Forward`` tree or a single agent's run).

    Raises:
        ConfigError: ``run`` is a session that no run produced (nothing to ask).
        RunNotFoundError: No run has that workflow id.
    """
    run_id = run_id_of(
        run,
        "it has no run graph; use "
        "rath.session.graph.lineage_journal_tracking() to record client-side operations",
    )

    async def query(client: Client) -> SessionGraph:
        if (await describe_run(client, run_id)).workflow_type not in _ASKED:
            return await history_graph(client, run_id)  # no graph query of its own
        try:
            graph: SessionGraph = await query_run(
                client, run_id, "graph", SessionGraph, timeout=timeout
            )
            return graph
        except WorkerUnavailableError as exc:
            logger.warning("%s; the graph shown is what the run's history holds", exc)
        return await history_graph(client, run_id)

    return get_runtime().call(query, timeout=timeout + _DESCRIBE_SECONDS, reader=True)
