"""The agent loop's tools, as workflow code: which exist, where each call runs, approvals.

A run's tools are the six built-ins (when its session is placed on a sandbox), the agent's
custom tools (by name and schema; the worker's registered copy runs) and MCP servers' tools
(listed once per run by ``rath.mcp.list_tools``, kept in the loop's state). Their schemas are
stored once (``rath.session.put_tools``) so each LLM round carries only a digest.
"""

from __future__ import annotations

import fnmatch
from datetime import datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from rath.activities.session import PutToolsArgs, PutToolsResult
    from rath.tools._custom import FlowToolCall
    from rath.tools.builtins import BUILTIN_TOOLS
    from rath.tools.mcp import McpToolBinding, McpToolList, McpTools, bind_mcp_tools

LIST_TIMEOUT = timedelta(seconds=90)
Decision = Literal["allow", "deny", "ask"]


class CustomToolSpec(BaseModel):
    """A custom tool as a workflow knows it: name and schema (the worker has the code)."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str | None = None
    parameters: dict[str, Any]
    parallel_safe: bool = False

    @classmethod
    def of(cls, tool: FlowToolCall) -> CustomToolSpec:
        """The spec of a tool object."""
        return cls(
            name=tool.name,
            description=tool.description,
            parameters=dict(tool.parameters),
            parallel_safe=tool.parallel_safe,
        )

    def to_schema(self) -> dict[str, Any]:
        """The OpenAI wire tool dict."""
        function: dict[str, Any] = {"name": self.name, "parameters": self.parameters}
        if self.description:
            function["description"] = self.description
        return {"type": "function", "function": function}


class ToolPolicy(BaseModel):
    """Which tool calls run, which are refused, and which wait for a person (``ask``).

    Attributes:
        rules: ``(pattern, decision)`` pairs; the first whose ``fnmatch`` pattern matches the
            tool name decides. Unmatched tools get ``default``.
        default: The decision for tools no rule matches.
        timeout_seconds: How long an ``ask`` waits; no answer counts as a denial.
    """

    model_config = ConfigDict(frozen=True)

    rules: tuple[tuple[str, Decision], ...] = ()
    default: Decision = "allow"
    timeout_seconds: float = 3600.0

    def decide(self, tool: str) -> Decision:
        """The decision for a call of ``tool``."""
        for pattern, decision in self.rules:
            if fnmatch.fnmatchcase(tool, pattern):
                return decision
        return self.default


class ToolSet(BaseModel):
    """What an agent asks for beyond the built-ins (``SessionLoopInput.tools``)."""

    model_config = ConfigDict(frozen=True)

    custom: tuple[CustomToolSpec, ...] = ()
    mcp: tuple[McpTools, ...] = ()
    policy: ToolPolicy | None = None

    def is_empty(self) -> bool:
        """True when only the built-ins are offered."""
        return not self.custom and not self.mcp


class ToolCatalog(BaseModel):
    """A run's tools, resolved once and carried across continue-as-new."""

    model_config = ConfigDict(frozen=True)

    builtins: tuple[str, ...] = ()
    custom: dict[str, CustomToolSpec] = {}
    mcp: dict[str, McpToolBinding] = {}
    schemas: str | None = None
    """Digest of the stored schema list of the custom and MCP tools (``None``: none)."""

    def names(self) -> tuple[str, ...]:
        """Every tool the model may call, sorted."""
        return tuple(sorted((*self.builtins, *self.custom, *self.mcp)))


async def resolve_catalog(tools: ToolSet | None, *, placed: bool, agent_name: str) -> ToolCatalog:
    """List the MCP servers, check names, store the schemas: the run's :class:`ToolCatalog`.

    Raises:
        ToolNameConflictError: A custom or MCP tool reuses a built-in's or another's name.
    """
    builtins = tuple(sorted(BUILTIN_TOOLS)) if placed else ()
    if tools is None or tools.is_empty():
        return ToolCatalog(builtins=builtins)
    custom = {spec.name: spec for spec in tools.custom}
    listed = [await _list(entry, agent_name) for entry in _distinct_servers(tools.mcp)]
    mcp = bind_mcp_tools(tools.mcp, listed, reserved=(*BUILTIN_TOOLS, *custom))
    schemas = [spec.to_schema() for spec in custom.values()]
    schemas += [binding.to_schema() for binding in mcp.values()]
    stored: PutToolsResult = await workflow.execute_activity(
        "rath.session.put_tools",
        PutToolsArgs(schemas=schemas),
        result_type=PutToolsResult,
        start_to_close_timeout=timedelta(seconds=60),
        summary=f"{agent_name} · {len(schemas)} tool schemas",
    )
    return ToolCatalog(builtins=builtins, custom=custom, mcp=mcp, schemas=stored.digest)


def _distinct_servers(entries: tuple[McpTools, ...]) -> list[McpTools]:
    seen: dict[str, McpTools] = {}
    for entry in entries:
        seen.setdefault(entry.server.key, entry)
    return list(seen.values())


async def _list(entry: McpTools, agent_name: str) -> McpToolList:
    from rath.activities.mcp import McpListArgs

    result: McpToolList = await workflow.execute_activity(
        "rath.mcp.list_tools",
        McpListArgs(server=entry.server),
        result_type=McpToolList,
        start_to_close_timeout=LIST_TIMEOUT,
        heartbeat_timeout=timedelta(seconds=30),
        retry_policy=RetryPolicy(maximum_attempts=5, non_retryable_error_types=["ConfigError"]),
        summary=f"{agent_name} · mcp {entry.server.label()} · list tools",
    )
    return result


class PendingApproval(BaseModel):
    """A tool call waiting for a person (the ``pending_approvals`` query lists these)."""

    model_config = ConfigDict(frozen=True)

    call_id: str
    tool: str
    arguments: str
    agent: str
    asked_at: datetime


class ApprovalDecision(BaseModel):
    """A person's answer to a pending call (the ``rath.approve`` update's input)."""

    model_config = ConfigDict(frozen=True)

    call_id: str
    approve: bool
    reason: str | None = None


class Approvals:
    """A run's pending approvals and the answers that came in (workflow state)."""

    def __init__(self) -> None:
        self.pending: dict[str, PendingApproval] = {}
        self._answers: dict[str, ApprovalDecision] = {}

    def check(self, decision: ApprovalDecision) -> None:
        """Refuse an answer for a call that is not waiting (the update's validator).

        Raises:
            ValueError: Naming the calls that are waiting.
        """
        if decision.call_id not in self.pending:
            waiting = ", ".join(sorted(self.pending)) or "none"
            raise ValueError(
                f"no tool call {decision.call_id!r} is waiting for approval (waiting: {waiting})"
            )

    def answer(self, decision: ApprovalDecision) -> None:
        """Record an answer; the waiting call goes on."""
        self._answers[decision.call_id] = decision

    async def ask(
        self, call_id: str, tool: str, arguments: str, agent: str, timeout: float
    ) -> ApprovalDecision | None:
        """Wait for an answer to ``call_id``; ``None`` when ``timeout`` seconds pass first."""
        self.pending[call_id] = PendingApproval(
            call_id=call_id, tool=tool, arguments=arguments, agent=agent, asked_at=workflow.now()
        )
        try:
            await workflow.wait_condition(
                lambda: call_id in self._answers, timeout=timedelta(seconds=timeout)
            )
        except TimeoutError:
            return None
        finally:
            self.pending.pop(call_id, None)
        return self._answers.pop(call_id)
