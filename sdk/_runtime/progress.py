"""One updating line on stderr while a script waits on a long run.

When reading a lazy session blocks for more than :data:`SHOW_AFTER` seconds and stderr is a
terminal, the wait shows what the run is doing: agents running and done, rounds, tokens and
elapsed time, read from the run's own queries about once a second. ``RATH_PROGRESS=0`` turns it
off; so does output that is not a terminal (logs, pipes, CI). The line is drawn by ``rich``
and removed when the wait ends.
"""

from __future__ import annotations

import concurrent.futures
import os
import sys
import time
from typing import Any

from rich.console import Console
from rich.status import Status
from temporalio.client import Client

from rath._runtime.runtime import Runtime
from rath.contracts import SESSION_LOOP, LoopCarry
from rath.llm._usage import TokenUsage
from rath.session._lineage import LineageKind
from rath.session.graph import SessionGraph

SHOW_AFTER = 2.0
"""Seconds of waiting before the line appears (short waits stay silent)."""
_REFRESH = 1.0
_QUERY_SECONDS = 2.0


def progress_enabled() -> bool:
    """True when stderr is a terminal and ``RATH_PROGRESS`` is not ``0``."""
    return os.environ.get("RATH_PROGRESS", "1") != "0" and sys.stderr.isatty()


def wait_showing_progress(
    runtime: Runtime, run_id: str, workflow: str, future: concurrent.futures.Future[Any]
) -> Any:
    """``future``'s result, with the progress line of ``run_id`` shown while it is pending."""
    started = time.monotonic()
    with Status(f"{run_id}: waiting", console=Console(stderr=True)) as status:
        while not future.done():
            facts = _facts(runtime, run_id, workflow)
            status.update(f"{run_id} · {facts} · {time.monotonic() - started:.0f} s")
            concurrent.futures.wait([future], timeout=_REFRESH)
    return future.result()


def _facts(runtime: Runtime, run_id: str, workflow: str) -> str:
    try:
        return runtime.submit(_ask(runtime, run_id, workflow)).result(timeout=_QUERY_SECONDS)
    except Exception:  # a run not started yet, or a worker busy: keep the line going
        return "starting"


async def _ask(runtime: Runtime, run_id: str, workflow: str) -> str:
    client = await runtime.client()
    if workflow == SESSION_LOOP.name:
        carry = await _query(client, run_id, "progress", LoopCarry | None)
        if carry is None:
            return "starting"
        return f"1 agent · round {carry.rounds + 1} · {_tokens(carry.usage)}"
    graph = await _query(client, run_id, "graph", SessionGraph)
    usage = await _query(client, run_id, "usage", TokenUsage | None)
    loops = [n for n in graph.nodes if n.lineage_kind is LineageKind.OP_SESSION_LOOP]
    done = sum(1 for n in loops if n.chunk_count is not None)
    return f"agents: {len(loops) - done} running, {done} done · {_tokens(usage)}"


async def _query(client: Client, run_id: str, name: str, result_type: Any) -> Any:
    handle = client.get_workflow_handle(run_id)
    return await handle.query(name, result_type=result_type)


def _tokens(usage: TokenUsage | None) -> str:
    return f"{usage.total_tokens if usage is not None else 0:,} tokens"
