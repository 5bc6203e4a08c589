"""Asking a run about itself from the client: its session graph."""

from __future__ import annotations

from rath._runtime.run_query import query_run
from rath._runtime.runtime import get_runtime
from rath.errors import ConfigError
from rath.session._session import Session
from rath.session.graph import SessionGraph

_DESCRIBE_SECONDS = 10.0
"""Room beyond the query's own timeout for finding out why no worker answered."""


def run_graph(run: Session | str, *, timeout: float = 30.0) -> SessionGraph:
    """The session graph of a run (a ``rath.Forward`` tree or a single agent's run).

    Works while the run is in flight (the graph so far) and after it ended, as long as a
    worker for its task queue is up (the embedded default's is).

    Args:
        run: A session a run returned (``out = squad(s)``), or the run's workflow id.
        timeout: Seconds to wait for the answer.

    Raises:
        ConfigError: ``run`` is a session that no run produced (nothing to ask).
        RunNotFoundError: No run has that workflow id.
        WorkerUnavailableError: No worker that can run it answered (the message says which
            to start).
    """
    run_id = run if isinstance(run, str) else run.run_id
    if run_id is None:
        raise ConfigError(
            "this session was not produced by a run, so it has no run graph; use "
            "rath.session.graph.lineage_journal_tracking() to record client-side operations"
        )
    runtime = get_runtime()

    async def query() -> SessionGraph:
        client = await runtime.client()
        graph: SessionGraph = await query_run(
            client, run_id, "graph", SessionGraph, timeout=timeout
        )
        return graph

    return runtime.submit(query()).result(timeout=timeout + _DESCRIBE_SECONDS)
