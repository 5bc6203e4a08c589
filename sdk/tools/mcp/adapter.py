"""OpenRath's stdio MCP adapter (``rath.flow.tool.mcp_adapter``): one server start per request.

For durable MCP (pooled sessions, retries, HTTP, secrets as references) see docs/mcp.md.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from mcp import Client
from mcp_types import CallToolResult, TextContent, Tool

from rath.backend import SharedLoop, ToolExecutionFailure, shared_loop
from rath.config import ConfigStore, default_store
from rath.errors import ConfigEntryNotFoundError
from rath.tools.base import FlowToolCall
from rath.tools.mcp._connect import list_all_tools, stdio_client

_EMPTY_SCHEMA: Mapping[str, Any] = {"type": "object", "properties": {}}


class MCPClient:
    """A stdio MCP server, started afresh for every request.

    Args:
        command: The executable, or a whole argv list.
        args: More arguments.
        env: Extra environment variables for the server (over this process's).
    """

    def __init__(
        self,
        command: str | list[str],
        *,
        args: list[str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        argv = [command] if isinstance(command, str) else list(command)
        self.command = argv[0]
        self.args = [*argv[1:], *(args or [])]
        self.env = dict(env or {})

    def list_tools(self) -> list[Tool]:
        """The server's tools (every page)."""
        return shared_mcp_loop().run(self._list())

    def call_tool(self, name: str, arguments: Mapping[str, Any]) -> CallToolResult:
        """One ``tools/call``."""
        return shared_mcp_loop().run(self._call(name, dict(arguments)))

    def _client(self) -> Client:
        return stdio_client(self.command, self.args, env={**os.environ, **self.env})

    async def _list(self) -> list[Tool]:
        async with self._client() as client:
            return await list_all_tools(client)

    async def _call(self, name: str, arguments: dict[str, Any]) -> CallToolResult:
        async with self._client() as client:
            return await client.call_tool(name, arguments)


class MCPToolCall(FlowToolCall):
    """One tool of an MCP server as a ``FlowToolCall`` (not parallel-safe).

    The result is flattened as OpenRath did (:func:`_flatten_call_result`). A result the server
    marks as an error (``is_error``) is a ``ToolExecutionFailure("mcp_tool_error", text)``,
    which the model reads as a failed call, as with Rath's durable MCP (OpenRath reported it as
    a success).
    """

    def __init__(
        self,
        *,
        client: MCPClient,
        name: str,
        description: str | None,
        parameters: Mapping[str, Any],
    ) -> None:
        self.client = client
        self.name = name
        self.description = description
        self.parameters = parameters

    def __call__(self, session: Any, arguments: Mapping[str, Any]) -> Any:
        """Call the tool (``session`` is not used)."""
        result = self.client.call_tool(self.name, arguments)
        flat = _flatten_call_result(result)
        if _field(result, "is_error", "isError"):
            text = flat.get("text") if isinstance(flat, dict) else None
            return ToolExecutionFailure("mcp_tool_error", text or "the tool reported an error")
        return flat

    def to_openai_tool(self) -> dict[str, Any]:
        """The Chat Completions ``tools`` entry."""
        return self.to_schema()


def flatten_result(result: CallToolResult) -> dict[str, Any]:
    """A ``tools/call`` result as JSON, every part kept (Rath's rendering).

    All parts text: ``{"text": ...}``, joined by newlines; no content: the structured content,
    else ``{"ok": true}``; otherwise ``{"content": [...]}`` with text parts as they are and
    other parts as JSON. :class:`MCPToolCall` uses OpenRath's :func:`_flatten_call_result`.
    """
    texts = [block.text for block in result.content if isinstance(block, TextContent)]
    if result.content and len(texts) == len(result.content):
        return {"text": "\n".join(texts)}
    if not result.content:
        structured = result.structured_content
        return dict(structured) if structured is not None else {"ok": True}
    return {"content": [_part(block) for block in result.content]}


def _flatten_call_result(result: Any) -> Any:
    """OpenRath's flattening of a ``tools/call`` result (any object with its fields).

    Parts with a string ``text`` joined by newlines: ``{"text": ...}`` (other parts are then
    left out); no content: the structured content, or ``{"ok": True}`` when it is missing or
    empty; no text part: ``{"content": [str(part), ...]}``. Reads mcp 2.x's field names
    (``structured_content``) and 1.x's (``structuredContent``).
    """
    content = getattr(result, "content", None)
    if not content:
        return _field(result, "structured_content", "structuredContent") or {"ok": True}
    texts = [text for part in content if isinstance(text := getattr(part, "text", None), str)]
    if texts:
        return {"text": "\n".join(texts)}
    return {"content": [str(part) for part in content]}


def _coerce_input_schema(input_schema: Any) -> Mapping[str, Any]:
    """OpenRath's: a tool's input schema as a JSON Schema dict (``None``: an empty object)."""
    if input_schema is None:
        return dict(_EMPTY_SCHEMA)
    if hasattr(input_schema, "model_dump"):
        return dict(input_schema.model_dump(mode="json", exclude_none=True))
    return dict(input_schema)


def _field(value: Any, name: str, legacy: str) -> Any:
    """``value.name`` (mcp 2.x), else ``value.legacy`` (mcp 1.x, duck-typed results)."""
    found = getattr(value, name, None)
    return found if found is not None else getattr(value, legacy, None)


def mcp_tools_from_server(
    command: str | list[str],
    *,
    args: list[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[MCPToolCall, ...]:
    """The tools of a stdio server (listed once, now)."""
    client = MCPClient(command, args=args, env=env)
    return tuple(
        MCPToolCall(
            client=client,
            name=tool.name,
            description=tool.description,
            parameters=_coerce_input_schema(_field(tool, "input_schema", "inputSchema")),
        )
        for tool in client.list_tools()
    )


def mcp_tools_from_config(
    name: str | None = None, *, store: ConfigStore | None = None
) -> tuple[MCPToolCall, ...]:
    """The tools of the config file's MCP server ``name``.

    Without a name, ``mcp.default_enabled`` must name exactly one server.

    Raises:
        ConfigEntryNotFoundError: No such server, or not exactly one enabled (a ``KeyError``).
    """
    store = store or default_store()
    if name is None:
        enabled = store.config.mcp.default_enabled
        if len(enabled) != 1:
            why = (
                "requires a server name when mcp.default_enabled is empty"
                if not enabled
                else f"is ambiguous when mcp.default_enabled has {len(enabled)} entries"
            )
            servers = ", ".join(sorted(store.config.mcp.servers)) or "none"
            raise ConfigEntryNotFoundError(
                f"mcp_tools_from_config() {why} in {store.path}: pass a name (servers: {servers})"
            )
        name = enabled[0]
    server = store.get_mcp_server(name)
    command: Sequence[str] = [server.command] if isinstance(server.command, str) else server.command
    return mcp_tools_from_server(list(command), env=server.env)


def shared_mcp_loop() -> SharedLoop:
    """The loop the adapter's requests run on (the backend plane's shared loop)."""
    return shared_loop()


def _part(block: Any) -> str:
    if isinstance(block, TextContent):
        return block.text
    if hasattr(block, "model_dump"):
        return json.dumps(block.model_dump(mode="json", exclude_none=True), ensure_ascii=False)
    return str(block)
