"""An agent run's tools as workflow input and state: asked and resolved. See docs/modules.md."""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from typing import Any, Literal, Protocol

from rath.contracts.mcp import McpToolBinding, McpTools
from rath.utils.frozen import Frozen

Decision = Literal["allow", "deny", "ask"]


class DescribedTool(Protocol):
    """What a custom tool object tells a workflow about itself (``FlowToolCall`` does)."""

    name: str
    description: str | None
    parameters: Mapping[str, Any]
    parallel_safe: bool


class CustomToolSpec(Frozen):
    """A custom tool as a workflow knows it: name and schema (the worker has the code)."""

    name: str
    description: str | None = None
    parameters: dict[str, Any]
    parallel_safe: bool = False

    @classmethod
    def of(cls, tool: DescribedTool) -> CustomToolSpec:
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


class ToolPolicy(Frozen):
    """Which tool calls run, which are refused, and which wait for a person (``ask``)."""

    rules: tuple[tuple[str, Decision], ...] = ()
    default: Decision = "allow"
    timeout_seconds: float = 3600.0

    def decide(self, tool: str) -> Decision:
        """The decision for a call of ``tool``."""
        for pattern, decision in self.rules:
            if fnmatch.fnmatchcase(tool, pattern):
                return decision
        return self.default


class ToolSet(Frozen):
    """What an agent asks for beyond the built-ins (``SessionLoopInput.tools``)."""

    custom: tuple[CustomToolSpec, ...] = ()
    mcp: tuple[McpTools, ...] = ()
    policy: ToolPolicy | None = None

    def is_empty(self) -> bool:
        """True when only the built-ins are offered."""
        return not self.custom and not self.mcp


class ToolCatalog(Frozen):
    """A run's tools, resolved once and carried across continue-as-new."""

    builtins: tuple[str, ...] = ()
    custom: dict[str, CustomToolSpec] = {}
    mcp: dict[str, McpToolBinding] = {}
    schemas: str | None = None
    """Digest of the stored schema list of the custom and MCP tools (``None``: none)."""

    def names(self) -> tuple[str, ...]:
        """Every tool the model may call, sorted."""
        return tuple(sorted((*self.builtins, *self.custom, *self.mcp)))
