"""Setting OpenTelemetry up once per process: tracer, meter, runtime. See docs/modules.md."""

from __future__ import annotations

import logging
import os
import threading
from datetime import timedelta
from functools import cache

from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from temporalio.contrib.opentelemetry import ReplaySafeTracerProvider, create_tracer_provider
from temporalio.runtime import (
    LoggingConfig,
    OpenTelemetryConfig,
    Runtime,
    TelemetryConfig,
    TelemetryFilter,
)

from rath.errors import ConfigError
from rath.settings import Settings
from rath.telemetry._collector import Collector, MetricExporter, SpanExporter, quiet_exporters

log = logging.getLogger("rath.telemetry")

_lock = threading.Lock()
_collector = Collector()
_installed: list[ReplaySafeTracerProvider | MeterProvider] = []


def install(settings: Settings) -> Runtime | None:
    """Set OpenTelemetry up for this process when ``settings.telemetry`` is on (once)."""
    if not settings.telemetry:
        return None
    with _lock:
        return _install_once()


@cache
def _install_once() -> Runtime | None:
    endpoint = otlp_endpoint()
    resource = Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME") or "rath"})
    _tracing(resource, endpoint)
    _metrics(resource, endpoint)
    return None if endpoint is None else _runtime_metrics(endpoint)


def otlp_endpoint() -> str | None:
    """The OTLP/HTTP base URL from ``OTEL_EXPORTER_OTLP_ENDPOINT`` (``None`` when unset)."""
    return (os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or "").rstrip("/") or None


def _tracing(resource: Resource, endpoint: str | None) -> None:
    current = trace.get_tracer_provider()
    if isinstance(current, ReplaySafeTracerProvider):
        return
    if isinstance(current, TracerProvider):
        log.warning(
            "telemetry: this process set its own tracer provider, so Rath adds no agent-run "
            "spans (workflow code needs a replay-safe one): create it with "
            "temporalio.contrib.opentelemetry.create_tracer_provider()"
        )
        return
    url = _signal_url("TRACES", endpoint, "traces")
    if url is None:
        log.warning(
            "telemetry: RATH_OTEL is on but no OTEL_EXPORTER_OTLP_ENDPOINT is set and this "
            "process set no tracer provider: no spans are exported"
        )
        return
    provider = create_tracer_provider(resource=resource)
    quiet_exporters(_collector)
    provider.add_span_processor(BatchSpanProcessor(SpanExporter(url, _collector)))
    trace.set_tracer_provider(provider)
    _installed.append(provider)


def _metrics(resource: Resource, endpoint: str | None) -> None:
    if isinstance(metrics.get_meter_provider(), MeterProvider):
        return
    url = _signal_url("METRICS", endpoint, "metrics")
    if url is None:
        return
    quiet_exporters(_collector)
    reader = PeriodicExportingMetricReader(MetricExporter(url, _collector))
    provider = MeterProvider(resource=resource, metric_readers=[reader])
    metrics.set_meter_provider(provider)
    _installed.append(provider)


def flush(timeout_seconds: float = 5.0) -> None:
    """Export what the providers Rath installed still hold, within ``timeout_seconds`` each."""
    for provider in _installed:
        provider.force_flush(int(timeout_seconds * 1000))


def _signal_url(signal: str, endpoint: str | None, path: str) -> str | None:
    """``OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT``, else the base endpoint plus ``/v1/<path>``."""
    own = os.environ.get(f"OTEL_EXPORTER_OTLP_{signal}_ENDPOINT")
    if own:
        return own
    return None if endpoint is None else f"{endpoint}/v1/{path}"


def _runtime_metrics(endpoint: str) -> Runtime:
    """A runtime sending Temporal's own SDK metrics (tasks, polls, latencies) to OTLP."""
    url = _signal_url("METRICS", endpoint, "metrics") or f"{endpoint}/v1/metrics"
    interval = os.environ.get("OTEL_METRIC_EXPORT_INTERVAL") or "60000"
    try:
        seconds = float(interval) / 1000
    except ValueError:
        raise ConfigError(
            f"OTEL_METRIC_EXPORT_INTERVAL={interval!r} must be a number of milliseconds"
        ) from None
    config = OpenTelemetryConfig(
        url=url,
        http=True,
        durations_as_seconds=True,
        metric_periodicity=timedelta(seconds=seconds),
    )
    # The runtime logs every failed export (each period, and at exit); the Python exporters
    # already say once that the collector is down.
    quiet = TelemetryFilter(core_level="WARN", other_level="ERROR").formatted()
    logging_config = LoggingConfig(filter=f"{quiet},{_RUNTIME_EXPORT_LOG}=error")
    return Runtime(telemetry=TelemetryConfig(metrics=config, logging=logging_config))


_RUNTIME_EXPORT_LOG = "temporalio_common::telemetry::otel"
"""Where the Temporal runtime logs its OTLP metric exports (Rust target of the core SDK)."""
