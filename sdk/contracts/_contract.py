"""Typed contracts: an activity's or workflow's name, input and result. See docs/modules.md."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Generic, TypedDict, TypeVar, Unpack, overload

if TYPE_CHECKING:
    from temporalio import workflow
    from temporalio.common import (
        Priority,
        RetryPolicy,
        SearchAttributes,
        TypedSearchAttributes,
        WorkflowIDReusePolicy,
    )

I = TypeVar("I")  # noqa: E741 (the input type)
R = TypeVar("R")
S = TypeVar("S")


class ActivityOptions(TypedDict, total=False):
    """How one activity call runs (``workflow.execute_activity``'s options; unset: its default)."""

    task_queue: str | None
    schedule_to_close_timeout: timedelta | None
    schedule_to_start_timeout: timedelta | None
    start_to_close_timeout: timedelta | None
    heartbeat_timeout: timedelta | None
    retry_policy: RetryPolicy | None
    cancellation_type: workflow.ActivityCancellationType
    activity_id: str | None
    versioning_intent: workflow.VersioningIntent | None
    summary: str | None
    priority: Priority


class LocalActivityOptions(TypedDict, total=False):
    """How one local activity call runs (``workflow.execute_local_activity``'s options)."""

    schedule_to_close_timeout: timedelta | None
    schedule_to_start_timeout: timedelta | None
    start_to_close_timeout: timedelta | None
    retry_policy: RetryPolicy | None
    local_retry_threshold: timedelta | None
    cancellation_type: workflow.ActivityCancellationType
    activity_id: str | None
    summary: str | None


class ChildOptions(TypedDict, total=False):
    """How one child workflow runs (``workflow.start_child_workflow``'s options)."""

    id: str | None
    task_queue: str | None
    cancellation_type: workflow.ChildWorkflowCancellationType
    parent_close_policy: workflow.ParentClosePolicy
    execution_timeout: timedelta | None
    run_timeout: timedelta | None
    task_timeout: timedelta | None
    id_reuse_policy: WorkflowIDReusePolicy
    retry_policy: RetryPolicy | None
    cron_schedule: str
    memo: Mapping[str, Any] | None
    search_attributes: SearchAttributes | TypedSearchAttributes | None
    versioning_intent: workflow.VersioningIntent | None
    static_summary: str | None
    static_details: str | None
    priority: Priority


@dataclass(frozen=True)
class ActivityContract(Generic[I, R]):
    """An activity both sides agree on: its registered name, its input and its result type."""

    name: str
    input: type[I]
    result: type[R]

    async def execute(self, arg: I, **options: Unpack[ActivityOptions]) -> R:
        """Workflow code: run the activity with ``arg`` and wait for its result.

        Raises:
            temporalio.exceptions.ActivityError: The activity failed (after its retries).
        """
        from temporalio import workflow  # deferred, for cost: values load no Temporal

        result: R = await workflow.execute_activity(
            self.name, arg, result_type=self.result, **options
        )
        return result

    async def execute_local(self, arg: I, **options: Unpack[LocalActivityOptions]) -> R:
        """Workflow code: run the activity as a local activity and wait for its result.

        Raises:
            temporalio.exceptions.ActivityError: The activity failed (after its retries).
        """
        from temporalio import workflow  # deferred, for cost: values load no Temporal

        result: R = await workflow.execute_local_activity(
            self.name, arg, result_type=self.result, **options
        )
        return result

    @overload
    def implement(self, fn: Callable[[S, I], Awaitable[R]]) -> Callable[[S, I], Awaitable[R]]: ...

    @overload
    def implement(self, fn: Callable[[I], Awaitable[R]]) -> Callable[[I], Awaitable[R]]: ...

    def implement(self, fn: Callable[..., Awaitable[R]]) -> Callable[..., Awaitable[R]]:
        """Decorator: register ``fn`` (a method or a function) as this activity."""
        from temporalio import activity  # deferred, for cost: values load no Temporal

        return activity.defn(name=self.name)(fn)


@dataclass(frozen=True)
class WorkflowContract(Generic[I, R]):
    """A workflow both sides agree on: its registered name, its input and its result type."""

    name: str
    input: type[I]
    result: type[R]

    async def start_child(
        self, arg: I, **options: Unpack[ChildOptions]
    ) -> workflow.ChildWorkflowHandle[Any, R]:
        """Workflow code: start the workflow as a child; await the handle for its result."""
        from temporalio import workflow  # deferred, for cost: values load no Temporal

        handle: workflow.ChildWorkflowHandle[Any, R] = await workflow.start_child_workflow(
            self.name, arg, result_type=self.result, **options
        )
        return handle
