"""What an agent is given (``McpTools``) and what the model sees (``McpToolBinding``).

``McpTools`` names a server and which of its tools to offer; it is a plain value, so it can be
an Agent's constructor argument and travel through history. The server's tool list is fetched
once per session by the ``rath.mcp.list_tools`` activity (an :class:`McpToolList`), kept in
workflow state, and turned into bindings by pure code: :meth:`McpTools.bind`.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Sequence
from fnmatch import fnmatchcase
from typing import Any

from pydantic import BaseModel, ConfigDict

from rath.errors import ConfigError, ToolNameConflictError
from rath.tools.mcp._spec import McpServerSpec

_MAX_NAME = 64  # OpenAI function names: ^[a-zA-Z0-9_-]{1,64}$
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_GLOB = re.compile(r"[*?\[]")


class McpToolInfo(BaseModel):
    """One tool as the server lists it.

    Attributes:
        name: The server's name for the tool.
        description: What it does (empty when the server gives none).
        parameters: Its JSON Schema (always an object schema).
    """

    model_config = ConfigDict(frozen=True)

    name: str
    description: str = ""
    parameters: dict[str, Any]


class McpToolList(BaseModel):
    """Result of ``rath.mcp.list_tools``: one server's tools, for workflow state.

    Attributes:
        server_key: :attr:`McpServerSpec.key` of the server listed.
        tools: The tools, in the server's order.
    """

    model_config = ConfigDict(frozen=True)

    server_key: str
    tools: tuple[McpToolInfo, ...]


class McpToolBinding(BaseModel):
    """One MCP tool as the model sees it, with what is needed to call it.

    Attributes:
        name: The model-facing tool name (prefixed and made safe for function names).
        tool: The server's name for the tool (what ``rath.mcp.call_tool`` sends).
        description: Its description.
        parameters: Its JSON Schema.
        server: The server to call.
        parallel_safe: Whether calls may overlap with other calls to the same server.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    tool: str
    description: str
    parameters: dict[str, Any]
    server: McpServerSpec
    parallel_safe: bool = False

    def to_schema(self) -> dict[str, Any]:
        """The OpenAI wire tool dict (a deep copy, safe to mutate)."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": copy.deepcopy(self.parameters),
            },
        }

    def resource_key(self, call_id: str) -> tuple[str, ...]:
        """The lane of one call: calls to one server run in order unless ``parallel_safe``."""
        if self.parallel_safe:
            return ("mcp", self.server.key, call_id)
        return ("mcp", self.server.key)


class McpTools(BaseModel):
    """An MCP server's tools, to pass to an Agent (``tools=[...]``). Nothing connects here.

    Build one with :func:`~rath.tools.mcp.mcp_tools_from_server` or
    :func:`~rath.tools.mcp.mcp_tools_from_config`.

    Attributes:
        server: The server.
        prefix: Put before each tool name the model sees (``"git_"`` + ``"status"``).
        allow: Server tool names (or ``fnmatch`` patterns) to offer; ``None`` offers all.
        parallel_safe: Let calls to this server overlap (default: one at a time, in order).
    """

    model_config = ConfigDict(frozen=True)

    server: McpServerSpec
    prefix: str = ""
    allow: tuple[str, ...] | None = None
    parallel_safe: bool = False

    def bind(self, listed: McpToolList) -> tuple[McpToolBinding, ...]:
        """The model-facing bindings of this server's listed tools (pure; workflow-safe).

        Args:
            listed: What ``rath.mcp.list_tools`` returned for :attr:`server`.

        Returns:
            One binding per allowed tool, in the server's order.

        Raises:
            ConfigError: ``listed`` is another server's, or an allowed name matches no tool.
            ToolNameConflictError: Two tools map to the same model-facing name.
        """
        if listed.server_key != self.server.key:
            raise ConfigError(
                f"tool list of server {listed.server_key} given for {self.server.label()!r}"
            )
        available = [tool.name for tool in listed.tools]
        for pattern in self.allow or ():
            if not _GLOB.search(pattern) and pattern not in available:
                raise ConfigError(
                    f"MCP server {self.server.label()!r} has no tool {pattern!r}; "
                    f"available: {', '.join(available) or 'none'}"
                )
        bindings: dict[str, McpToolBinding] = {}
        for tool in listed.tools:
            if self.allow is not None and not any(fnmatchcase(tool.name, p) for p in self.allow):
                continue
            name = _model_name(self.prefix + tool.name)
            if name in bindings:
                raise ToolNameConflictError(
                    f"MCP tools {bindings[name].tool!r} and {tool.name!r} of server "
                    f"{self.server.label()!r} both map to the tool name {name!r}"
                )
            bindings[name] = McpToolBinding(
                name=name,
                tool=tool.name,
                description=tool.description,
                parameters=tool.parameters,
                server=self.server,
                parallel_safe=self.parallel_safe,
            )
        return tuple(bindings.values())


def bind_mcp_tools(
    tools: Sequence[McpTools],
    listed: Iterable[McpToolList],
    *,
    reserved: Iterable[str] = (),
) -> dict[str, McpToolBinding]:
    """Bind several servers' tools into one name → binding table (pure; workflow-safe).

    Args:
        tools: The agent's MCP tool sets.
        listed: The tool lists fetched for them (one per distinct server key; extras ignored).
        reserved: Names already taken (built-in and custom tools).

    Returns:
        The bindings by model-facing name, in ``tools`` order.

    Raises:
        ConfigError: A server in ``tools`` has no tool list in ``listed``.
        ToolNameConflictError: A name is reserved or offered twice; the message says by whom.
    """
    by_key = {item.server_key: item for item in listed}
    taken = set(reserved)
    table: dict[str, McpToolBinding] = {}
    for entry in tools:
        if entry.server.key not in by_key:
            raise ConfigError(f"no tool list fetched for MCP server {entry.server.label()!r}")
        for binding in entry.bind(by_key[entry.server.key]):
            if binding.name in taken:
                raise ToolNameConflictError(
                    f"MCP tool {binding.tool!r} of server {entry.server.label()!r} would be "
                    f"named {binding.name!r}, which another tool already uses; give the server "
                    "a prefix (prefix=...)"
                )
            if binding.name in table:
                other = table[binding.name].server.label()
                raise ToolNameConflictError(
                    f"MCP servers {other!r} and {entry.server.label()!r} both offer a tool "
                    f"named {binding.name!r}; give one of them a prefix (prefix=...)"
                )
            table[binding.name] = binding
    return table


def _model_name(name: str) -> str:
    return _UNSAFE.sub("_", name)[:_MAX_NAME] or "_"
