"""Exporting to an OTLP collector that may be down: one warning, no waits. See docs/modules.md."""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar
from urllib.parse import urlsplit

from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.metrics.export import MetricExportResult, MetricsData
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult

log = logging.getLogger("rath.telemetry")

PROBE_SECONDS = 1.0
"""How long asking whether the collector listens may take (a refused connect takes none)."""
RETRY_SECONDS = 5.0
"""How long batches are dropped after the collector failed, before it is asked again."""

# The loggers of the OTLP/HTTP exporters' retry loop (module names, hence stable).
EXPORTER_LOGGERS = (
    "opentelemetry.exporter.otlp.proto.http.trace_exporter",
    "opentelemetry.exporter.otlp.proto.http.metric_exporter",
    "opentelemetry.exporter.otlp.common.http",
)

R = TypeVar("R")


def _probe(url: str) -> str | None:
    """Why ``url``'s host does not take a connection, or ``None`` when it does."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname or "localhost", port), PROBE_SECONDS):
            return None
    except OSError as exc:
        return exc.strerror or str(exc) or type(exc).__name__


class Collector:
    """The OTLP collector as Rath's exporters see it, shared by the span and metric exporters."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._healthy: set[str] = set()
        self._retry_at: dict[str, float] = {}
        self._warned = False
        self._said: str | None = None  # the first line an exporter logged since the last export

    def send(self, url: str, export: Callable[[], R], ok: R, dropped: R) -> R:
        """Run ``export`` to ``url`` unless the collector is down; record how it went."""
        if not self._admit(url):
            return dropped
        try:
            result = export()
        except Exception as exc:  # an exporter bug must not break the batch thread
            self._failed(url, f"{type(exc).__name__}: {exc}")
            return dropped
        if result == ok:
            with self._lock:
                self._healthy.add(url)
                self._warned = False
                self._said = None
        else:
            self._failed(url, None)
        return result

    def note(self, message: str) -> None:
        """What an exporter logged: kept as the reason of the next failure, not printed."""
        with self._lock:
            self._said = self._said or message

    def _admit(self, url: str) -> bool:
        with self._lock:
            if url in self._healthy:
                return True
            if time.monotonic() < self._retry_at.get(url, 0.0):
                return False
        problem = _probe(url)
        if problem is None:
            return True
        self._failed(url, problem)
        return False

    def _failed(self, url: str, problem: str | None) -> None:
        with self._lock:
            self._healthy.discard(url)
            self._retry_at[url] = time.monotonic() + RETRY_SECONDS
            reason = " ".join((problem or self._said or "the export failed").split())
            self._said = None
            if self._warned:
                return
            self._warned = True
        if len(reason) > 160:
            reason = reason[:157] + "..."
        log.warning(
            "telemetry: the OTLP collector at %s does not take exports (%s): spans and metrics "
            "are dropped until it does (check OTEL_EXPORTER_OTLP_ENDPOINT)",
            url,
            reason,
        )


class _Quiet(logging.Filter):
    """Holds the OTLP exporters' lines back, handing them to the collector as reasons."""

    def __init__(self, collector: Collector) -> None:
        super().__init__()
        self._collector = collector

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING:
            self._collector.note(record.getMessage())
        return False


class SpanExporter(OTLPSpanExporter):
    """OTLP/HTTP span exporter to ``endpoint`` that drops batches while the collector is down."""

    def __init__(self, endpoint: str, collector: Collector) -> None:
        super().__init__(endpoint=endpoint)
        self._url = endpoint
        self._collector = collector

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return self._collector.send(
            self._url,
            lambda: super(SpanExporter, self).export(spans),
            SpanExportResult.SUCCESS,
            SpanExportResult.FAILURE,
        )


class MetricExporter(OTLPMetricExporter):
    """OTLP/HTTP metric exporter to ``endpoint`` that drops data while the collector is down."""

    def __init__(self, endpoint: str, collector: Collector) -> None:
        super().__init__(endpoint=endpoint)
        self._url = endpoint
        self._collector = collector

    def export(
        self, metrics_data: MetricsData, timeout_millis: float | None = 10_000, **kwargs: Any
    ) -> MetricExportResult:
        return self._collector.send(
            self._url,
            lambda: super(MetricExporter, self).export(metrics_data, timeout_millis, **kwargs),
            MetricExportResult.SUCCESS,
            MetricExportResult.FAILURE,
        )


def quiet_exporters(collector: Collector) -> None:
    """Route the OTLP exporters' log lines to ``collector`` (once per process)."""
    for name in EXPORTER_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, _Quiet) for f in logger.filters):
            logger.addFilter(_Quiet(collector))
