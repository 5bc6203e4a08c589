"""Asking a run about itself from the client: its session graph."""

from __future__ import annotations

from rath._runtime.runtime import get_runtime
from rath.errors import ConfigError
from rath.session._session import Session
from rath.session.graph import SessionGraph


def run_graph(run: Session | str, *, timeout: float = 30.0) -> SessionGraph:
    """The session graph of a run (a ``rath.Forward`` tree or a single agent's run).

    Works while the run is in flight (the graph so far) and after it ended, as long as a
    worker for its task queue is up (the embedded default's is).

    Args:
        run: A session a run returned (``out = squad(s)``), or the run's workflow id.
        timeout: Seconds to wait for the answer.

    Raises:
        ConfigError: ``run`` is a session that no run produced (nothing to ask).
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
        handle = client.get_workflow_handle(run_id)
        graph: SessionGraph = await handle.query("graph", result_type=SessionGraph)
        return graph

    return runtime.submit(query()).result(timeout=timeout)
