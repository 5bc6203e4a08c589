"""What an activity tells its telemetry span that only the activity knows (a tool's name)."""

from __future__ import annotations

from contextvars import ContextVar

from opentelemetry import trace

# The metric attributes of the activity attempt running in this context, set by the
# interceptor only when telemetry is on (so annotating costs nothing when it is off).
current_attributes: ContextVar[dict[str, str] | None] = ContextVar(
    "rath_telemetry_attributes", default=None
)


def annotate_tool(name: str) -> None:
    """Name the tool of the tool-call activity running now (its span and its metrics)."""
    attributes = current_attributes.get()
    if attributes is None:
        return
    attributes["gen_ai.tool.name"] = name
    span = trace.get_current_span()
    span.update_name(f"execute_tool {name}")
    span.set_attribute("gen_ai.tool.name", name)
