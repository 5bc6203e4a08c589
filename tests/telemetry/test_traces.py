"""Telemetry: a Squad run is one trace (forward, agents, LLM and tool calls), with metrics,
and a replayed run makes no span twice. In-memory exporters; the OTLP test is next door."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from squad_app import Squad, files_model
from support import FAST, fake_provider
from temporalio.client import Client
from temporalio.contrib.opentelemetry import OpenTelemetryInterceptor
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from rath import flow
from rath.plugin import workflow_runner
from rath.session import Session
from rath.settings import Settings
from rath.telemetry import TelemetryInterceptor
from rath.testing import FakeChatServer, function_handler, text_reply
from rath.workflows.forward import ForwardWorkflow
from rath.workflows.session_loop import SessionLoopWorkflow


def _by_name(spans: list[ReadableSpan]) -> dict[str, list[ReadableSpan]]:
    named: dict[str, list[ReadableSpan]] = {}
    for span in spans:
        named.setdefault(span.name, []).append(span)
    return named


def _parent(span: ReadableSpan, spans: list[ReadableSpan]) -> ReadableSpan | None:
    parent = span.parent
    if parent is None:
        return None
    return next((s for s in spans if s.context.span_id == parent.span_id), None)


def _sum_points(reader: InMemoryMetricReader, name: str) -> Counter[tuple[tuple[str, Any], ...]]:
    totals: Counter[tuple[tuple[str, Any], ...]] = Counter()
    data = reader.get_metrics_data()
    for resource in data.resource_metrics if data else ():
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                if metric.name == name:
                    for point in metric.data.data_points:
                        key = tuple(sorted((point.attributes or {}).items()))
                        totals[key] += int(getattr(point, "value", 0))
    return totals


def test_a_squad_run_is_one_trace_of_agents_llm_and_tool_calls(
    otel_env: Settings,
    spans: InMemorySpanExporter,
    metric_reader: InMemoryMetricReader,
    tmp_path: Path,
) -> None:
    before_tokens = sum(_sum_points(metric_reader, "rath.llm.tokens").values())
    with FakeChatServer(function_handler(files_model)) as server:
        user = Session.from_user_message("build").to("local", spec=tmp_path / "ws")
        out = Squad(fake_provider(server), options=FAST)(user)
        out.synchronize()
    assert (tmp_path / "ws" / "coder_a.txt").exists()
    finished = list(spans.get_finished_spans())
    named = _by_name(finished)

    (forward,) = named["rath.forward Squad"]
    assert forward.attributes is not None
    assert forward.attributes["rath.session.output"] == str(out.id)
    agents = [s for s in finished if s.name.startswith("invoke_agent ")]
    assert len(agents) == 4, sorted(named)
    for agent in agents:
        assert _parent(agent, finished) is forward
        assert agent.context.trace_id == forward.context.trace_id

    chats = named["chat fake-model"]
    assert len(chats) == 6  # planner 1, each coder 2 (tool call, then text), reviewer 1
    for chat in chats:
        parent = _parent(chat, finished)
        assert parent is not None and parent.name.startswith("invoke_agent "), parent
        assert chat.attributes is not None
        assert chat.attributes["gen_ai.request.model"] == "fake-model"
        assert chat.attributes["gen_ai.usage.input_tokens"] in (10, 20)
        assert chat.attributes["gen_ai.usage.output_tokens"] in (5, 7)
        assert chat.attributes["gen_ai.response.finish_reasons"] in (("stop",), ("tool_calls",))

    tools = named["execute_tool write_workspace_file"]
    assert len(tools) == 2
    for tool in tools:
        parent = _parent(tool, finished)
        assert parent is not None
        assert parent.name in ("invoke_agent coder_a", "invoke_agent coder_b")
        assert tool.attributes is not None
        assert tool.attributes["rath.sandbox"] == "local"
        assert tool.attributes["rath.tool.outcome"] == "ok"

    reviewer = named["invoke_agent reviewer"][0]
    assert reviewer.attributes is not None
    assert reviewer.attributes["gen_ai.usage.input_tokens"] == 20

    tokens = _sum_points(metric_reader, "rath.llm.tokens")
    assert sum(tokens.values()) - before_tokens == 4 * 20 + 2 * 10 + 4 * 7 + 2 * 5
    calls = _sum_points(metric_reader, "rath.tool.calls")
    key = (("gen_ai.tool.name", "write_workspace_file"), ("rath.outcome", "ok"))
    assert any(dict(k).items() >= dict(key).items() and n >= 2 for k, n in calls.items()), calls


async def test_replaying_a_run_makes_no_spans(
    otel_env: Settings, spans: InMemorySpanExporter, client: Client
) -> None:
    with FakeChatServer([text_reply("hi")]) as server:
        out = flow.Agent("Greet.", provider=fake_provider(server), options=FAST)(
            Session.from_user_message("hello")
        )
        out.synchronize()
    assert out.run_id is not None
    finished = len(spans.get_finished_spans())
    assert finished >= 2  # the agent run and its LLM call
    history = await client.get_workflow_handle(out.run_id).fetch_history()
    replayer = Replayer(
        workflows=[SessionLoopWorkflow, ForwardWorkflow],
        data_converter=pydantic_data_converter,
        workflow_runner=workflow_runner(),
        interceptors=[OpenTelemetryInterceptor(), TelemetryInterceptor()],
    )
    await replayer.replay_workflow(history)
    assert len(spans.get_finished_spans()) == finished
