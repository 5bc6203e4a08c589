"""MCP's values: server specs, the tools an agent is given, and the MCP activities' contracts.

See docs/mcp.md, "Where the code is".
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from fnmatch import fnmatchcase
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import ConfigDict, field_validator, model_validator

from rath.contracts._contract import ActivityContract
from rath.contracts.tools import RunToolResult, function_schema
from rath.errors import ConfigError, ToolNameConflictError
from rath.utils.frozen import Frozen

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def is_name(text: str) -> bool:
    """Whether ``text`` is a valid environment variable name."""
    return _NAME.fullmatch(text) is not None


def normalise_reference(value: str, where: str) -> str:
    """A reference in template form: ``NAME`` becomes ``${NAME}``; templates are kept.

    Args:
        value: A variable name or a template with at least one ``${NAME}``.
        where: What the value configures (``env 'X'``, ``header 'Y'``), for the message.

    Raises:
        ValueError: The value holds no reference (it may be a literal secret).
    """
    if is_name(value):
        return "${" + value + "}"
    if _PLACEHOLDER.search(value):
        return value
    raise ValueError(
        f"{where}: values must name environment variables (NAME or a template such as "
        "'Bearer ${NAME}'), never hold literal values: specs are stored in workflow history. "
        "Set the variable in the worker's environment instead"
    )


def referenced_names(template: str) -> list[str]:
    """The variable names a template refers to, in order."""
    return _PLACEHOLDER.findall(template)


def resolve(template: str, environ: Mapping[str, str], where: str) -> str:
    """Substitute the worker's environment into a template.

    Raises:
        ConfigError: A referenced variable is not set on this worker (the message names it,
            never a value).
    """

    def substitute(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in environ:
            raise ConfigError(
                f"{where} refers to the environment variable {name!r}, which is not set on "
                "this worker; set it in the worker's environment"
            )
        return environ[name]

    return _PLACEHOLDER.sub(substitute, template)


McpTransport = Literal["stdio", "sse", "streamable_http"]
"""The three MCP transports: a subprocess over stdin/stdout, HTTP+SSE, streamable HTTP."""

_KEY_FIELDS = ("transport", "command", "args", "env", "cwd", "url", "headers")


class McpServerSpec(Frozen):
    """An MCP server, described so it can travel through workflow history.

    The spec never holds a secret: ``env`` and ``headers`` values are references to the
    worker's environment (``"API_TOKEN"`` or a template like ``"Bearer ${API_TOKEN}"``), which
    the worker resolves when it connects. Constructing a spec does not connect.

    Attributes:
        transport: ``"stdio"``, ``"sse"`` or ``"streamable_http"``.
        name: A label for messages and summaries (not part of :attr:`key`).
        command: stdio: the executable to start (looked up on the worker's ``PATH``).
        args: stdio: its arguments.
        env: stdio: variables to set for the server, each mapped to a reference into the
            worker's environment. Beyond these the server gets only a minimal safe environment
            (``PATH``, ``HOME``, ``USER``, ...), never the worker's whole environment.
        cwd: stdio: the server's working directory on the worker.
        url: sse / streamable_http: the endpoint (``http`` or ``https``, no credentials in it).
        headers: sse / streamable_http: HTTP headers, each mapped to a reference.
    """

    model_config = ConfigDict(extra="forbid")

    transport: McpTransport
    name: str | None = None
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = {}
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = {}

    @field_validator("env", mode="before")
    @classmethod
    def _env_references(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):
            value = {name: name for name in value}
        if not isinstance(value, dict):
            return value
        out: dict[str, str] = {}
        for name, ref in value.items():
            if not isinstance(name, str) or not is_name(name):
                raise ValueError(f"env: {name!r} is not a valid environment variable name")
            if not isinstance(ref, str):
                raise ValueError(f"env {name!r}: expected a string reference")
            out[name] = normalise_reference(ref, f"env {name!r}")
        return dict(sorted(out.items()))

    @field_validator("headers", mode="before")
    @classmethod
    def _header_references(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        out: dict[str, str] = {}
        for name, ref in value.items():
            if not isinstance(name, str) or not name or not isinstance(ref, str):
                raise ValueError(f"headers: bad entry {name!r}")
            out[name] = normalise_reference(ref, f"header {name!r}")
        return dict(sorted(out.items()))

    @model_validator(mode="after")
    def _fields_match_transport(self) -> McpServerSpec:
        if self.transport == "stdio":
            if not self.command:
                raise ValueError("a stdio MCP server needs a command")
            if self.url is not None or self.headers:
                raise ValueError("a stdio MCP server takes no url or headers")
            return self
        if self.command is not None or self.args or self.env or self.cwd is not None:
            raise ValueError(f"an {self.transport} MCP server takes no command, args, env or cwd")
        if not self.url:
            raise ValueError(f"an {self.transport} MCP server needs a url")
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"MCP server url must be http(s)://host/...: {self.url!r}")
        if parts.username is not None or parts.password is not None:
            raise ValueError(
                "MCP server url must not carry credentials (they would be stored in workflow "
                "history); pass them as headers that reference environment variables"
            )
        return self

    def __hash__(self) -> int:
        return hash(self.key)

    @property
    def key(self) -> str:
        """A stable id of the server connection: equal for specs that reach the same server.

        Workers pool one live connection per key. ``name`` does not count.
        """
        identity = self.model_dump(mode="json", include=set(_KEY_FIELDS))
        data = json.dumps(identity, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(data.encode()).hexdigest()[:16]

    def label(self) -> str:
        """A short human-readable name: ``name``, else the command or the url."""
        if self.name:
            return self.name
        if self.command is not None:
            return posixpath.basename(self.command)
        return str(self.url)


_MAX_NAME = 64  # OpenAI function names: ^[a-zA-Z0-9_-]{1,64}$
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_GLOB = re.compile(r"[*?\[]")


class McpToolInfo(Frozen):
    """One tool as the server lists it.

    Attributes:
        name: The server's name for the tool.
        description: What it does (empty when the server gives none).
        parameters: Its JSON Schema (always an object schema).
    """

    name: str
    description: str = ""
    parameters: dict[str, Any]


class McpToolList(Frozen):
    """Result of ``rath.mcp.list_tools``: one server's tools, for workflow state.

    Attributes:
        server_key: :attr:`McpServerSpec.key` of the server listed.
        tools: The tools, in the server's order.
    """

    server_key: str
    tools: tuple[McpToolInfo, ...]


class McpToolBinding(Frozen):
    """One MCP tool as the model sees it, with what is needed to call it.

    Attributes:
        name: The model-facing tool name (prefixed and made safe for function names).
        tool: The server's name for the tool (what ``rath.mcp.call_tool`` sends).
        description: Its description.
        parameters: Its JSON Schema.
        server: The server to call.
        parallel_safe: Whether calls may overlap with other calls to the same server.
    """

    name: str
    tool: str
    description: str
    parameters: dict[str, Any]
    server: McpServerSpec
    parallel_safe: bool = False

    def to_schema(self) -> dict[str, Any]:
        """The OpenAI wire tool dict (a deep copy, safe to mutate)."""
        return function_schema(self.name, self.description, self.parameters)

    def resource_key(self, call_id: str) -> tuple[str, ...]:
        """The lane of one call: calls to one server run in order unless ``parallel_safe``."""
        if self.parallel_safe:
            return ("mcp", self.server.key, call_id)
        return ("mcp", self.server.key)


class McpTools(Frozen):
    """An MCP server's tools, to pass to an Agent (``tools=[...]``). Nothing connects here.

    Build one with :func:`~rath.tools.mcp.mcp_tools_from_server` or
    :func:`~rath.tools.mcp.mcp_tools_from_config`.

    Attributes:
        server: The server.
        prefix: Put before each tool name the model sees (``"git_"`` + ``"status"``).
        allow: Server tool names (or ``fnmatch`` patterns) to offer; ``None`` offers all.
        parallel_safe: Let calls to this server overlap (default: one at a time, in order).
    """

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


class McpListArgs(Frozen):
    """Input of ``rath.mcp.list_tools``."""

    server: McpServerSpec


class McpCallArgs(Frozen):
    """Input of ``rath.mcp.call_tool``.

    Attributes:
        server: The server to call.
        assistant: Digest of the assistant row holding the call.
        call_index: Index of the call in that row's ``tool_calls``.
        tool_name: The server's name for the tool (the model may see it prefixed).
        origin_run_id: The run whose history this run started from (its own unless reset),
            which the call's idempotency key names.
    """

    server: McpServerSpec
    assistant: str
    call_index: int
    tool_name: str
    origin_run_id: str | None = None


LIST_MCP_TOOLS = ActivityContract("rath.mcp.list_tools", McpListArgs, McpToolList)
"""List a server's tools (names, descriptions, JSON-schema parameters)."""
CALL_MCP_TOOL = ActivityContract("rath.mcp.call_tool", McpCallArgs, RunToolResult)
"""Run one MCP tool call and store its TOOL_RESULT row."""
