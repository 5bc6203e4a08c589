"""``TelemetryInterceptor``: Rath's spans and metrics around runs and calls. See docs/modules.md."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode
from temporalio import activity, workflow
from temporalio.contrib.opentelemetry import ReplaySafeTracerProvider
from temporalio.worker import (
    ActivityInboundInterceptor,
    ExecuteActivityInput,
    ExecuteWorkflowInput,
    Interceptor,
    WorkflowInboundInterceptor,
    WorkflowInterceptorClassInput,
)

from rath.contracts.llm import CompleteResult, CompressResult
from rath.contracts.tools import RunToolResult
from rath.session.session import Session
from rath.telemetry._annotate import current_attributes
from rath.telemetry._describe import CallSpan, call_span, run_span, usage_attributes
from rath.telemetry._metrics import instruments

TRACER = "rath"


class TelemetryInterceptor(Interceptor):
    """Spans for agent runs, forwards, LLM calls and tool calls; metrics for the calls."""

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _CallSpans(next)

    def workflow_interceptor_class(
        self, input: WorkflowInterceptorClassInput
    ) -> type[WorkflowInboundInterceptor]:
        return _RunSpans


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


class _RunSpans(WorkflowInboundInterceptor):
    async def execute_workflow(self, input: ExecuteWorkflowInput) -> Any:
        described = run_span(input.args)
        provider = trace.get_tracer_provider()
        if described is None or not isinstance(provider, ReplaySafeTracerProvider):
            return await super().execute_workflow(input)
        name, attributes = described
        attributes["rath.workflow.id"] = workflow.info().workflow_id
        tracer = provider.get_tracer(TRACER)
        with tracer.start_as_current_span(
            name, attributes=attributes, record_exception=False, set_status_on_exception=False
        ) as span:
            try:
                result = await super().execute_workflow(input)
            except workflow.ContinueAsNewError:
                span.set_attribute("rath.continued_as_new", True)
                raise
            except BaseException as exc:
                # Recorded on every exception: the replay-safe span is then not ended for a
                # workflow-task failure (which retries), only for a failed run.
                span.record_exception(exc)
                span.set_status(Status(StatusCode.ERROR, _one_line(exc)))
                raise
            if isinstance(result, Session):
                span.set_attributes(usage_attributes(result.usage))
            return result


class _CallSpans(ActivityInboundInterceptor):
    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        info = activity.info()
        described = call_span(info.activity_type, input.args)
        if described is None:
            return await super().execute_activity(input)
        described.attributes["rath.attempt"] = info.attempt
        token = current_attributes.set(described.metric_attributes)
        started = time.monotonic()
        tracer = trace.get_tracer(TRACER)
        with tracer.start_as_current_span(
            described.name,
            kind=SpanKind.CLIENT,
            attributes=described.attributes,
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            try:
                result = await super().execute_activity(input)
            except BaseException as exc:
                cancelled = isinstance(exc, asyncio.CancelledError)
                error = "cancelled" if cancelled else type(exc).__name__
                span.record_exception(exc)
                span.set_status(Status(StatusCode.ERROR, _one_line(exc)))
                _record(described, "failed", time.monotonic() - started, None)
                instruments().errors.add(
                    1, {"rath.activity": info.activity_type, "error.type": error}
                )
                raise
            finally:
                current_attributes.reset(token)
            outcome = _outcome(span, result)
            _record(described, outcome, time.monotonic() - started, result)
            return result


def _outcome(span: trace.Span, result: Any) -> str:
    """Put what the result says on the span; returns the call's outcome."""
    if isinstance(result, CompleteResult):
        span.set_attributes(
            {
                "gen_ai.response.model": result.model,
                "gen_ai.response.finish_reasons": (result.finish_reason,),
                "rath.tool_calls": len(result.tool_calls),
                **usage_attributes(result.usage),
            }
        )
    elif isinstance(result, CompressResult):
        span.set_attributes(usage_attributes(result.usage))
    elif isinstance(result, RunToolResult):
        outcome = "ok" if result.ok else "tool_error"
        span.set_attribute("rath.tool.outcome", outcome)
        return outcome
    return "ok"


def _record(call: CallSpan, outcome: str, seconds: float, result: Any) -> None:
    """The call's metrics: one call with its outcome, its duration, and its tokens."""
    metrics = instruments()
    attributes = {**call.metric_attributes, "rath.outcome": outcome}
    if call.kind == "llm":
        metrics.llm_calls.add(1, attributes)
        metrics.llm_duration.record(seconds, attributes)
        usage = getattr(result, "usage", None)
        if usage is not None:
            counts = (("input", usage.prompt_tokens), ("output", usage.completion_tokens))
            for kind, count in counts:
                metrics.llm_tokens.add(count, {**call.metric_attributes, "gen_ai.token.type": kind})
    else:
        metrics.tool_calls.add(1, attributes)
        metrics.tool_duration.record(seconds, attributes)
