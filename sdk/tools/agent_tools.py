"""What an agent's ``tools=`` and ``tool_policy=`` become: the run's :class:`ToolSet`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rath.contracts.catalog import CustomToolSpec, ToolPolicy, ToolSet
from rath.errors import ConfigError, ToolNameConflictError
from rath.tools.mcp import McpTools
from rath.tools.registry import TOOLS

PolicyLike = ToolPolicy | Mapping[str, str] | None


def agent_tool_set(tools: Iterable[Any] | None, policy: PolicyLike = None) -> ToolSet | None:
    """The run's tools beyond the built-ins, and its policy (``None`` when there are neither).

    Custom tools are registered with this process's workers (so the embedded default, and a
    worker running a durable ``forward`` that builds the agent, can run them).

    Raises:
        ToolNameConflictError: A tool reuses a built-in's or another tool's name.
        ConfigError: Something that is not a tool, or a bad policy.
    """
    custom: dict[str, CustomToolSpec] = {}
    mcp: list[McpTools] = []
    for item in _flatten(tools or ()):
        if isinstance(item, McpTools):
            mcp.append(item)
            continue
        made = TOOLS.register(item)
        if made.name in custom:
            raise ToolNameConflictError(f"tool {made.name!r} is given twice to one agent")
        custom[made.name] = CustomToolSpec.of(made)
    rules = _policy(policy)
    if not custom and not mcp and rules is None:
        return None
    return ToolSet(custom=tuple(custom.values()), mcp=tuple(mcp), policy=rules)


def _flatten(items: Iterable[Any]) -> Iterable[Any]:
    for item in items:
        if isinstance(item, tuple | list):
            yield from item
        else:
            yield item


def _policy(policy: PolicyLike) -> ToolPolicy | None:
    if policy is None or isinstance(policy, ToolPolicy):
        return policy
    if not isinstance(policy, Mapping):
        raise ConfigError(
            "tool_policy must be a ToolPolicy or {pattern: 'allow' | 'deny' | 'ask'}, "
            f"not {type(policy).__name__}"
        )
    bad = {k: v for k, v in policy.items() if v not in ("allow", "deny", "ask")}
    if bad:
        raise ConfigError(f"tool_policy values must be 'allow', 'deny' or 'ask': {bad}")
    return ToolPolicy(rules=tuple(policy.items()))
