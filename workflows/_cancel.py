"""Cancellation in workflow code: the run's own cancel versus other errors. See docs/modules.md."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import is_cancelled_exception

with workflow.unsafe.imports_passed_through():
    from rath.utils.text import preview
    from rath.workflows._versions import has_change

CANCEL_PATCH = "rath-clean-cancel"
LINE_LIMIT = 500


def stopping(exc: BaseException) -> bool:
    """Whether ``exc`` is this run's own cancellation (requested, and handled cleanly)."""
    # A run evicted from the worker's cache is torn down outside its event loop: not a stop.
    if not is_cancelled_exception(exc) or not workflow.in_workflow():
        return False
    return workflow.cancellation_reason() is not None and has_change(CANCEL_PATCH)


def reraise_if_stopping(exc: BaseException) -> None:
    """Raise ``exc`` again when it is the run's own cancellation (never go on without it)."""
    if stopping(exc):
        raise exc


def cancel_reason() -> str:
    """Why the run was cancelled, as the request said (or who asked, when it said nothing)."""
    reason = workflow.cancellation_reason() or ""
    if reason:
        return reason
    parent = workflow.info().parent
    if parent is not None:
        return f"its parent run {parent.workflow_id!r} cancelled it"
    return "cancel requested (no reason given)"


def cancelled_line(*details: str) -> str:
    """The one line a cancelled run's catalog record carries: the reason, then ``details``."""
    return preview("; ".join((f"cancelled: {cancel_reason()}", *filter(None, details))), LINE_LIMIT)
