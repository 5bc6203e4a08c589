"""Workflow side of the session catalog: a record at a run's start and end. See docs/modules.md."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from rath.contracts.session import RECORD_SESSION, CatalogArgs
    from rath.utils.failures import describe_failure
    from rath.utils.text import preview
    from rath.workflows._cancel import reraise_if_stopping
    from rath.workflows._versions import has_change

CATALOG_PATCH = "rath-catalog-records"
LOCAL_PATCH = "rath-catalog-local"
_OPTIONS: dict[str, Any] = {
    "start_to_close_timeout": timedelta(seconds=60),
    "retry_policy": RetryPolicy(maximum_attempts=10, maximum_interval=timedelta(seconds=30)),
}


async def record_session(**fields: Any) -> None:
    """Write the record ``fields`` describe (``CatalogArgs``); created/workflow id filled in."""
    if not has_change(CATALOG_PATCH):
        return
    fields.setdefault("created", workflow.now())
    fields.setdefault("workflow_id", workflow.info().workflow_id)
    args = CatalogArgs(**fields)
    try:
        if has_change(LOCAL_PATCH):
            await RECORD_SESSION.execute_local(args, summary="catalog", **_OPTIONS)
        else:
            await RECORD_SESSION.execute(args, summary="catalog", **_OPTIONS)
    except ActivityError as exc:  # the run's own work matters more than its record
        reraise_if_stopping(exc)
        workflow.logger.warning("catalog record of %s not written: %s", fields["session_id"], exc)


async def record_failure(exc: BaseException, **fields: Any) -> str:
    """Record the run as failed with one line of ``exc``; returns that line."""
    error = preview(describe_failure(exc), 300)
    await record_session(**fields, status="failed", error=error)
    return error
