"""What each span says: names and attributes from typed inputs, results. See docs/modules.md."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.util.types import AttributeValue

from rath.contracts.llm import COMPLETE, COMPRESS, CompleteArgs, CompressArgs
from rath.contracts.mcp import CALL_MCP_TOOL, McpCallArgs
from rath.contracts.runs import CompressInput, ForwardInput, SessionLoopInput
from rath.contracts.tools import RUN_CUSTOM_TOOL, RUN_TOOL, CustomToolArgs, RunToolArgs
from rath.llm.chat_response import RathLLMTokenUsage

Attributes = dict[str, AttributeValue]


@dataclass
class CallSpan:
    """The span and metric attributes of one LLM or tool call attempt."""

    kind: str
    """``"llm"`` or ``"tool"``."""
    name: str
    attributes: Attributes
    metric_attributes: dict[str, str] = field(default_factory=dict)


def run_span(args: Sequence[Any]) -> tuple[str, Attributes] | None:
    """The span of an agent run, a durable forward or a compression; ``None`` for others."""
    arg = args[0] if args else None
    if isinstance(arg, SessionLoopInput):
        return f"invoke_agent {arg.agent_name}", {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": arg.agent_name,
            "gen_ai.request.model": arg.provider.model or "",
            "rath.session.input": str(arg.user.id),
            "rath.session.output": str(arg.output_id),
        }
    if isinstance(arg, ForwardInput):
        return f"rath.forward {arg.module.class_name}", {
            "rath.workflow.class": arg.module.target,
            "rath.session.input": str(arg.session.id),
            "rath.session.output": str(arg.output_id),
        }
    if isinstance(arg, CompressInput):
        return f"rath.compress {arg.args.agent_name}", {
            "gen_ai.agent.name": arg.args.agent_name,
            "rath.session.output": str(arg.output.id),
        }
    return None


def call_span(activity_type: str, args: Sequence[Any]) -> CallSpan | None:
    """The span of an LLM or tool call activity; ``None`` for Rath's other activities."""
    arg = args[0] if args else None
    if activity_type in (COMPLETE.name, COMPRESS.name) and isinstance(
        arg, CompleteArgs | CompressArgs
    ):
        model = arg.provider.model or ""
        operation = "chat" if isinstance(arg, CompleteArgs) else "rath.compress"
        attributes: Attributes = {
            "gen_ai.operation.name": operation,
            "gen_ai.provider.name": arg.provider.kind,
            "gen_ai.request.model": model,
            "gen_ai.agent.name": arg.agent_name,
        }
        if isinstance(arg, CompleteArgs):
            attributes["rath.round"] = arg.round
        metric = {"gen_ai.request.model": model, "gen_ai.operation.name": operation}
        return CallSpan("llm", f"{operation} {model}".strip(), attributes, metric)
    if activity_type in (RUN_TOOL.name, RUN_CUSTOM_TOOL.name, CALL_MCP_TOOL.name) and isinstance(
        arg, RunToolArgs | CustomToolArgs | McpCallArgs
    ):
        tool_kind = {RUN_TOOL.name: "builtin", RUN_CUSTOM_TOOL.name: "custom"}.get(
            activity_type, "mcp"
        )
        attributes = {"gen_ai.operation.name": "execute_tool", "rath.tool.kind": tool_kind}
        agent = getattr(arg, "agent_name", None)
        if agent:
            attributes["gen_ai.agent.name"] = agent
        placement = getattr(arg, "placement", None)
        if placement is not None:
            attributes["rath.sandbox"] = placement.spec.backend
            attributes["rath.sandbox.id"] = str(placement.sandbox_id)
        metric = {"rath.tool.kind": tool_kind}
        name = getattr(arg, "tool_name", None)
        if name:  # a built-in call's name is in its assistant row: the activity reports it
            attributes["gen_ai.tool.name"] = name
            metric["gen_ai.tool.name"] = name
        return CallSpan("tool", f"execute_tool {name or ''}".strip(), attributes, metric)
    return None


def usage_attributes(usage: RathLLMTokenUsage | None) -> Attributes:
    """Token counts as GenAI attributes (none when the provider reported no usage)."""
    if usage is None:
        return {}
    return {
        "gen_ai.usage.input_tokens": usage.prompt_tokens,
        "gen_ai.usage.output_tokens": usage.completion_tokens,
    }
