"""OpenTelemetry for Rath: traces and metrics, behind one switch. See docs/modules.md."""

from __future__ import annotations

from rath.telemetry._annotate import annotate_tool
from rath.telemetry._interceptor import TelemetryInterceptor
from rath.telemetry._propagation import TracePropagation
from rath.telemetry._setup import flush, install

__all__ = ["TelemetryInterceptor", "TracePropagation", "annotate_tool", "flush", "install"]
