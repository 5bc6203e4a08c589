"""The catalog made to agree with Temporal about runs that closed silently. See docs/modules.md."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from temporalio.client import Client, WorkflowExecution, WorkflowExecutionStatus
from temporalio.service import RPCError

from rath.errors import RathError
from rath.llm.chat_response import usage_json
from rath.runtime.run_history import CLOSED_STATUS, close_reason, closed_output
from rath.runtime.run_query import find_run
from rath.runtime.runtime import get_runtime
from rath.store import Catalog, ChunkStore, SessionRecord

RECONCILE_SECONDS = 10.0
"""The longest reconciling may take before the catalog is read without it."""
_BATCH = 100
_QUOTED = frozenset("'\"\\")


@dataclass(frozen=True, slots=True)
class Reconciled:
    """What reconciling changed."""

    checked: int = 0
    changed: tuple[SessionRecord, ...] = ()
    note: str | None = None
    by_id: dict[str, SessionRecord] = field(default_factory=dict, repr=False)

    def apply(self, records: Iterable[SessionRecord]) -> list[SessionRecord]:
        """``records`` with the rewritten ones in their place."""
        return [self.by_id.get(str(record.id), record) for record in records]


def reconcile(
    store: ChunkStore,
    records: Sequence[SessionRecord] | None = None,
    *,
    recheck_unknown: bool = False,
    timeout: float = RECONCILE_SECONDS,
) -> Reconciled:
    """Check ``records`` (default: the whole catalog) that say ``running`` against Temporal."""
    catalog = Catalog(store.objects)
    records = catalog.records() if records is None else records
    wanted = {"running", "unknown"} if recheck_unknown else {"running"}
    open_records = [r for r in records if r.status in wanted and r.workflow_id]
    if not open_records:
        return Reconciled()
    runtime = get_runtime()

    async def check() -> list[SessionRecord]:
        client = await runtime.reader()
        return await _reconciled(client, store, open_records)

    try:
        changed = runtime.submit(asyncio.wait_for(check(), timeout)).result(timeout + 5)
    except (RathError, RPCError, TimeoutError) as exc:
        detail = str(exc).splitlines()[0] if str(exc) else f"no answer within {timeout:g} s"
        note = (
            f"rath: the catalog is shown as last recorded: {len(open_records)} running "
            f"records not checked with Temporal ({detail})"
        )
        return Reconciled(checked=0, note=note)
    return Reconciled(
        checked=len(open_records),
        changed=tuple(changed),
        by_id={str(r.id): r for r in changed},
    )


def reconcile_noting(
    store: ChunkStore,
    records: Sequence[SessionRecord] | None = None,
    *,
    note: Callable[[str], object],
) -> Reconciled:
    """:func:`reconcile`, giving ``note`` the line that says the check could not be made."""
    result = reconcile(store, records)
    if result.note is not None:
        note(result.note)
    return result


async def _reconciled(
    client: Client, store: ChunkStore, records: Sequence[SessionRecord]
) -> list[SessionRecord]:
    catalog = Catalog(store.objects)
    runs = await _runs_of(client, [r.workflow_id or "" for r in records])
    changed = []
    for record in records:
        workflow_id = record.workflow_id or ""
        found = runs.get(workflow_id) or await _described(client, workflow_id)
        update = await _update(client, store, record, found)
        if update is None:
            continue
        current = await asyncio.to_thread(catalog.get, record.id)
        if current is None or current.status != record.status:
            continue  # the run wrote its own record meanwhile: it knows best
        await asyncio.to_thread(catalog.put, update)
        changed.append(update)
    return changed


async def _runs_of(client: Client, workflow_ids: list[str]) -> dict[str, list[WorkflowExecution]]:
    """Every run of each workflow id, from visibility, a hundred ids per list query."""
    plain = sorted({w for w in workflow_ids if not (_QUOTED & set(w))})
    runs: dict[str, list[WorkflowExecution]] = defaultdict(list)
    for start in range(0, len(plain), _BATCH):
        ids = ", ".join(f"'{w}'" for w in plain[start : start + _BATCH])
        async for execution in client.list_workflows(f"WorkflowId IN ({ids})"):
            runs[execution.id].append(execution)
    return runs


async def _described(client: Client, workflow_id: str) -> list[WorkflowExecution]:
    """The newest run by ``describe``: visibility lags a just-started run a little."""
    found = await find_run(client, workflow_id)
    return [] if found is None else [found]


def newest(runs: Sequence[WorkflowExecution]) -> WorkflowExecution | None:
    """The run a workflow id names now: the running one, else the one closed last."""
    running = [r for r in runs if r.status == WorkflowExecutionStatus.RUNNING]
    if running:
        return running[0]
    closed = [r for r in runs if r.close_time is not None]
    return max(closed, key=lambda r: r.close_time or datetime.min.replace(tzinfo=UTC), default=None)


async def _update(
    client: Client, store: ChunkStore, record: SessionRecord, runs: list[WorkflowExecution]
) -> SessionRecord | None:
    """The record as Temporal tells it, or None when it needs no change."""
    run = newest(runs)
    if run is None:
        if record.status == "unknown":
            return None
        return record.model_copy(
            update={
                "status": "unknown",
                "error": (
                    f"Temporal no longer has run {record.workflow_id!r} (its retention "
                    "ended, or it ran in another namespace): how it ended was not recorded"
                ),
            }
        )
    if run.status == WorkflowExecutionStatus.RUNNING:
        if record.status == "running":
            return None
        return record.model_copy(update={"status": "running", "error": None})
    status = CLOSED_STATUS.get(run.status) if run.status is not None else None
    if status is None:
        return None  # continued as new: its successor is not visible yet
    fields: dict[str, object] = {"status": status, "closed": run.close_time}
    fields["error"] = await close_reason(client, run.id, run.run_id)
    if status == "completed" and record.root is None:
        output = await closed_output(client, run.id)
        if output is not None:
            fields["root"] = await asyncio.to_thread(store.seal, output.table)
            fields["usage"] = usage_json(output.usage) if output.usage else record.usage
    return record.model_copy(update=fields)
