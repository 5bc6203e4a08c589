"""Calls routed to a loop executor's process: bounded waits, gone errors. See docs/modules.md."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError, TimeoutType
from temporalio.exceptions import TimeoutError as ActivityTimeout

with workflow.unsafe.imports_passed_through():
    from rath.contracts.llm import ExecutorRef


def never_taken(exc: ActivityError) -> bool:
    """True when no worker started the activity within its schedule-to-start timeout."""
    cause = exc.cause
    return isinstance(cause, ActivityTimeout) and cause.type == TimeoutType.SCHEDULE_TO_START


def executor_gone(executor: ExecutorRef, seconds: float, what: str) -> ApplicationError:
    """The run's failure when ``what`` (e.g. "model call") found no executor process."""
    return ApplicationError(
        f"no process took the {what} from {executor.queue!r} within {seconds:g} s: the "
        "process that started this run with executor= has ended, and its executor with it; "
        "start the run again (LoopOptions.tool_worker_wait_seconds sets the wait)",
        type="LoopExecutorGone",
        non_retryable=True,
    )
