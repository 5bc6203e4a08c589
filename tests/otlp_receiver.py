"""A real OTLP/HTTP receiver on 127.0.0.1: decodes the protobuf export requests it is sent.

``OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint`` points OpenTelemetry's exporters (and
Temporal's runtime metrics) at it; :meth:`wait_for` waits, bounded, for what a test expects.
"""

from __future__ import annotations

import gzip
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue


def value_of(value: AnyValue) -> Any:
    """The Python value of an OTLP attribute value."""
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return tuple(value_of(item) for item in value.array_value.values)
    return getattr(value, kind) if kind else None


class OtlpReceiver:
    """Collects spans (name, attributes, ids) and metric names sent over OTLP/HTTP."""

    def __init__(self) -> None:
        self.spans: list[dict[str, Any]] = []
        self.metric_names: set[str] = set()
        self._changed = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                if self.headers.get("content-encoding") == "gzip":
                    body = gzip.decompress(body)
                receiver._receive(self.path, body)
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        """The base URL to give ``OTEL_EXPORTER_OTLP_ENDPOINT``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def wait_for(self, ready: Callable[[OtlpReceiver], bool], timeout: float = 30.0) -> bool:
        """Wait until ``ready(self)`` holds, at most ``timeout`` seconds; whether it does."""
        with self._changed:
            return self._changed.wait_for(lambda: ready(self), timeout)

    def _receive(self, path: str, body: bytes) -> None:
        with self._changed:
            if path.endswith("/v1/traces"):
                traces = ExportTraceServiceRequest.FromString(body)
                for resource in traces.resource_spans:
                    for scope in resource.scope_spans:
                        for span in scope.spans:
                            attributes = {a.key: value_of(a.value) for a in span.attributes}
                            self.spans.append(
                                {
                                    "name": span.name,
                                    "span_id": span.span_id,
                                    "parent": span.parent_span_id,
                                    "trace_id": span.trace_id,
                                    "attributes": attributes,
                                }
                            )
            elif path.endswith("/v1/metrics"):
                exported = ExportMetricsServiceRequest.FromString(body)
                for resource in exported.resource_metrics:
                    for scope in resource.scope_metrics:
                        self.metric_names.update(metric.name for metric in scope.metrics)
            self._changed.notify_all()
