"""Rath's metric instruments: LLM and tool calls, tokens, latency, errors. See docs/modules.md."""

from __future__ import annotations

from functools import cache

from opentelemetry import metrics


class Instruments:
    """The counters and histograms, created once per process."""

    def __init__(self, meter: metrics.Meter) -> None:
        self.llm_calls = meter.create_counter(
            "rath.llm.calls", unit="{call}", description="LLM calls by model and outcome"
        )
        self.llm_tokens = meter.create_counter(
            "rath.llm.tokens",
            unit="{token}",
            description="Tokens by model and gen_ai.token.type (input or output)",
        )
        self.llm_duration = meter.create_histogram(
            "rath.llm.duration", unit="s", description="Duration of one LLM call attempt"
        )
        self.tool_calls = meter.create_counter(
            "rath.tool.calls", unit="{call}", description="Tool calls by tool and outcome"
        )
        self.tool_duration = meter.create_histogram(
            "rath.tool.duration", unit="s", description="Duration of one tool call attempt"
        )
        self.errors = meter.create_counter(
            "rath.errors",
            unit="{error}",
            description="Activity attempts that failed, by activity type and error type",
        )


@cache
def instruments() -> Instruments:
    """The process's instruments (the global meter provider forwards to the one set later)."""
    return Instruments(metrics.get_meter("rath"))
