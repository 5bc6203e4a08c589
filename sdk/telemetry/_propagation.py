"""``TracePropagation``: Temporal's OpenTelemetry interceptor, trimmed. See docs/modules.md."""

from __future__ import annotations

import temporalio.client
import temporalio.worker
from opentelemetry import trace
from temporalio.contrib.opentelemetry import OpenTelemetryInterceptor, ReplaySafeTracerProvider


class TracePropagation(temporalio.client.Interceptor, temporalio.worker.Interceptor):
    """Trace context through clients, workflows and activities (workflows: replay-safe only)."""

    def __init__(self) -> None:
        self._otel = OpenTelemetryInterceptor()

    def intercept_client(
        self, next: temporalio.client.OutboundInterceptor
    ) -> temporalio.client.OutboundInterceptor:
        return self._otel.intercept_client(next)

    def intercept_activity(
        self, next: temporalio.worker.ActivityInboundInterceptor
    ) -> temporalio.worker.ActivityInboundInterceptor:
        return self._otel.intercept_activity(next)

    def workflow_interceptor_class(
        self, input: temporalio.worker.WorkflowInterceptorClassInput
    ) -> type[temporalio.worker.WorkflowInboundInterceptor] | None:
        if not isinstance(trace.get_tracer_provider(), ReplaySafeTracerProvider):
            return None
        return self._otel.workflow_interceptor_class(input)

    def intercept_nexus_operation(
        self, next: temporalio.worker.NexusOperationInboundInterceptor
    ) -> temporalio.worker.NexusOperationInboundInterceptor:
        return self._otel.intercept_nexus_operation(next)
