"""The agent loop's tools in workflow code: resolved once per run. See docs/modules.md."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from rath.contracts.catalog import ToolCatalog, ToolSet
    from rath.contracts.mcp import (
        LIST_MCP_TOOLS,
        McpListArgs,
        McpToolList,
        McpTools,
        bind_mcp_tools,
    )
    from rath.contracts.session import PUT_TOOLS, PutToolsArgs
    from rath.tools.builtins import BUILTIN_TOOLS

LIST_TIMEOUT = timedelta(seconds=90)
PUT_TIMEOUT = timedelta(seconds=60)


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
    stored = await PUT_TOOLS.execute(
        PutToolsArgs(schemas=schemas),
        start_to_close_timeout=PUT_TIMEOUT,
        summary=f"{agent_name} · {len(schemas)} tool schemas",
    )
    return ToolCatalog(builtins=builtins, custom=custom, mcp=mcp, schemas=stored.digest)


def _distinct_servers(entries: tuple[McpTools, ...]) -> list[McpTools]:
    seen: dict[str, McpTools] = {}
    for entry in entries:
        seen.setdefault(entry.server.key, entry)
    return list(seen.values())


async def _list(entry: McpTools, agent_name: str) -> McpToolList:
    return await LIST_MCP_TOOLS.execute(
        McpListArgs(server=entry.server),
        start_to_close_timeout=LIST_TIMEOUT,
        heartbeat_timeout=timedelta(seconds=30),
        retry_policy=RetryPolicy(maximum_attempts=5, non_retryable_error_types=["ConfigError"]),
        summary=f"{agent_name} · mcp {entry.server.label()} · list tools",
    )
