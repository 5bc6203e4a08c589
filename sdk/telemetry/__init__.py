"""OpenTelemetry for Rath: traces and metrics for clients and workers, behind one switch.

Turn it on with ``RATH_OTEL=1``, or just by setting ``OTEL_EXPORTER_OTLP_ENDPOINT`` (the
standard ``OTEL_*`` variables configure the OTLP/HTTP exporters; ``OTEL_SDK_DISABLED=true``
turns everything off). Then:

- every agent run is an ``invoke_agent {agent}`` span, every durable forward a
  ``rath.forward {Class}`` span, each LLM call a ``chat {model}`` span with the model, tokens
  in and out and the finish reason, and each tool call an ``execute_tool {tool}`` span with
  the tool, its sandbox and its outcome; they form one trace across client, workflows,
  child workflows and activities, and a replayed workflow makes no spans twice;
- the ``rath.llm.*`` and ``rath.tool.*`` metrics count calls, tokens, latency and errors,
  and Temporal's own runtime metrics go to the same OTLP endpoint.

A process that sets up OpenTelemetry itself keeps its providers; workflow spans need a
tracer provider from ``temporalio.contrib.opentelemetry.create_tracer_provider()`` (which is
what Rath installs when none is set). See ``docs/operators.md`` ("Telemetry").
"""

from __future__ import annotations

from rath.telemetry._annotate import annotate_tool
from rath.telemetry._interceptor import TelemetryInterceptor
from rath.telemetry._propagation import TracePropagation
from rath.telemetry._setup import flush, install

__all__ = ["TelemetryInterceptor", "TracePropagation", "annotate_tool", "flush", "install"]
