"""``TracePropagation``: Temporal's OpenTelemetry interceptor, minus what cannot work here.

``temporalio.contrib.opentelemetry.OpenTelemetryInterceptor`` refuses to build a worker
(``ValueError ... must be a ReplaySafeTracerProvider``) unless the process's tracer provider is
replay-safe, which it is not when no spans are exported or the process set up its own. Then
this interceptor leaves workflows alone (they make no spans anyway) and keeps the rest: the
trace context still travels from the client and activities still make their spans.
"""

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
