"""This process's OpenTelemetry providers, in memory (a process sets each provider once)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from temporalio.contrib.opentelemetry import create_tracer_provider

from rath.runtime.runtime import shutdown_runtime
from rath.settings import Settings

_SPANS = InMemorySpanExporter()
_METRICS = InMemoryMetricReader()


@pytest.fixture(scope="session")
def _providers() -> None:
    provider = create_tracer_provider()
    provider.add_span_processor(SimpleSpanProcessor(_SPANS))
    trace.set_tracer_provider(provider)
    metrics.set_meter_provider(MeterProvider(metric_readers=[_METRICS]))


@pytest.fixture
def spans(_providers: None) -> InMemorySpanExporter:
    """Every span this process finished since the test began."""
    _SPANS.clear()
    return _SPANS


@pytest.fixture
def metric_reader(_providers: None) -> InMemoryMetricReader:
    """This process's metrics (cumulative since the first test that used them)."""
    return _METRICS


@pytest.fixture
def otel_env(
    rath_env: Settings, _providers: None, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Settings]:
    """The embedded default with telemetry on (``RATH_OTEL=1``)."""
    monkeypatch.setenv("RATH_OTEL", "1")
    settings = Settings.from_env()
    assert settings.telemetry
    yield settings
    shutdown_runtime(settings)
