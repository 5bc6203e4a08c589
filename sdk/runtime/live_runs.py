"""The runs in flight, for garbage collection: what their histories hold. See docs/modules.md."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass

from temporalio.client import Client

from rath.errors import GcRefusedError
from rath.runtime.connect import connect
from rath.runtime.devserver import ensure_server
from rath.runtime.run_history import RUN_TYPES
from rath.settings import Settings

_DIGEST = re.compile(rb"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])")
_UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass(frozen=True, slots=True)
class LiveRuns:
    """The running Rath workflows, and the digests and session ids their histories name."""

    runs: tuple[str, ...] = ()
    digests: frozenset[str] = frozenset()
    session_ids: frozenset[str] = frozenset()
    run_ids: frozenset[str] = frozenset()


async def scan_running(client: Client) -> LiveRuns:
    """Read every running Rath workflow's history on ``client``'s namespace."""
    runs: list[str] = []
    digests: set[str] = set()
    sessions: set[str] = set()
    run_ids: set[str] = set()
    async for execution in client.list_workflows("ExecutionStatus = 'Running'"):
        run_ids.add(f"{execution.id}/{execution.run_id}")
        if execution.workflow_type not in RUN_TYPES:
            continue
        runs.append(execution.id)
        handle = client.get_workflow_handle(execution.id, run_id=execution.run_id)
        history = await handle.fetch_history()
        for event in history.events:
            raw = event.SerializeToString()
            digests.update(match.decode() for match in _DIGEST.findall(raw))
            sessions.update(match.decode() for match in _UUID.findall(raw))
    return LiveRuns(tuple(runs), frozenset(digests), frozenset(sessions), frozenset(run_ids))


def live_runs(settings: Settings | None = None, *, timeout: float = 60.0) -> LiveRuns:
    """The runs in flight on the Temporal server ``settings`` name (the embedded one if unset).

    Raises:
        GcRefusedError: Temporal did not answer within ``timeout`` (the message names
            ``TEMPORAL_ADDRESS``).
    """
    settings = settings or Settings.from_env()

    async def scan() -> LiveRuns:
        address = settings.address
        if address is None:
            address = (await asyncio.to_thread(ensure_server, settings.home)).address
        client = await connect(settings, address, [])
        return await scan_running(client)

    async def bounded() -> LiveRuns:
        return await asyncio.wait_for(scan(), timeout)

    try:
        return asyncio.run(bounded())
    except Exception as exc:  # any failure to reach Temporal, translated once, here
        where = settings.address or f"the embedded server of {settings.home}"
        raise GcRefusedError(
            f"cannot list the runs in flight: Temporal at {where} did not answer "
            f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else 'no detail'}), "
            "so their chunks cannot be told from garbage; nothing was swept. Check that "
            "TEMPORAL_ADDRESS names a reachable server (unset: the embedded one), or use "
            "--dry-run to see what would go"
        ) from None
