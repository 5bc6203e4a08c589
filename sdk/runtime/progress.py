"""Waiting on a long run: its progress, or the worker it lacks. See docs/modules.md."""

from __future__ import annotations

import concurrent.futures
import os
import sys
import time
from typing import Any

from rich.console import Console
from rich.status import Status
from temporalio.client import Client

from rath.contracts.runs import COMPRESS_RUN, FORWARD, SESSION_LOOP, LoopCarry
from rath.errors import WorkerUnavailableError
from rath.llm.chat_response import RathLLMTokenUsage
from rath.runtime.run_history import agent_nodes
from rath.runtime.run_query import Stall, check_worker, describe_run, query_run
from rath.runtime.runtime import Runtime, notice
from rath.session.graph import SessionGraph

SHOW_AFTER = 2.0
"""Seconds of waiting before the line appears (short waits stay silent)."""
PROBE_EVERY = 5.0
"""Seconds between checks that some worker answers for a run a script waits on."""
_REFRESH = 1.0
_QUERY_SECONDS = 2.0
_PROBE_SECONDS = 5.0


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


def wait_noting_missing_worker(
    runtime: Runtime, run_id: str, future: concurrent.futures.Future[Any]
) -> Any:
    """``future``'s result; if no worker answers for ``run_id`` meanwhile, one line says so."""
    stall = Stall()
    while not future.done():
        missing, length = _missing_worker(runtime, run_id)
        if stall.stuck(missing is not None, length):
            notice(f"{missing}; still waiting (Ctrl-C leaves the run to its workers)")
            break
        concurrent.futures.wait([future], timeout=PROBE_EVERY)
    return future.result()


def _missing_worker(runtime: Runtime, run_id: str) -> tuple[str | None, int]:
    """Why no worker answers for ``run_id`` (None: one did), and its history's length."""

    async def probe(client: Client) -> tuple[str | None, int]:
        length = (await describe_run(client, run_id)).history_length
        try:
            await check_worker(client, run_id, timeout=_PROBE_SECONDS)
        except WorkerUnavailableError as exc:
            return str(exc), length
        return None, length

    try:
        return runtime.call(probe, timeout=_PROBE_SECONDS + 10, reader=True)
    except Exception:  # not started yet, closing, a busy server: ask again later
        return None, -1


def _facts(runtime: Runtime, run_id: str, workflow: str) -> str:
    try:
        return runtime.call(
            lambda client: _ask(client, run_id, workflow), timeout=_QUERY_SECONDS + 5, reader=True
        )
    except WorkerUnavailableError as exc:
        return f"waiting: {exc}"
    except Exception:  # a run not started yet, or a worker busy: keep the line going
        return "starting"


async def _ask(client: Client, run_id: str, workflow: str) -> str:
    if workflow == SESSION_LOOP.name:
        carry = await _query(client, run_id, "progress", LoopCarry | None)
        if carry is None:
            return "starting"
        return f"1 agent · round {carry.rounds + 1} · {_tokens(carry.usage)}"
    if workflow != FORWARD.name:
        await check_worker(client, run_id, timeout=_QUERY_SECONDS)
        return "compressing" if workflow == COMPRESS_RUN.name else "running"
    graph = await _query(client, run_id, "graph", SessionGraph)
    usage = await _query(client, run_id, "usage", RathLLMTokenUsage | None)
    description = await describe_run(client, run_id)
    started = {child.workflow_id for child in description.raw_description.pending_children}
    return f"{agent_counts(graph, started)} · {_tokens(usage)}"


def agent_counts(graph: SessionGraph, running_runs: set[str]) -> str:
    """``agents: R running, D done[, W waiting]`` for a forward's graph."""
    loops = agent_nodes(graph)
    running = sum(1 for n in loops if n.run_id in running_runs)
    done = sum(
        1
        for n in loops
        if n.run_id not in running_runs
        and (n.chunk_count is not None or n.cumulative_usage is not None)
    )
    waiting = len(loops) - running - done
    return f"agents: {running} running, {done} done" + (f", {waiting} waiting" if waiting else "")


async def _query(client: Client, run_id: str, name: str, result_type: Any) -> Any:
    return await query_run(client, run_id, name, result_type, timeout=_QUERY_SECONDS)


def _tokens(usage: RathLLMTokenUsage | None) -> str:
    return f"{usage.total_tokens if usage is not None else 0:,} tokens"
