"""``mcp_tools_from_server`` and ``mcp_tools_from_config``: MCP tool sets for an Agent.

Neither connects: they only describe servers. The worker connects when the session first
lists the tools (``rath.mcp.list_tools``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rath.contracts.mcp import McpServerSpec, McpTools, McpTransport
from rath.errors import ConfigError

_TRANSPORT_ALIASES: Mapping[str, McpTransport] = {
    "stdio": "stdio",
    "sse": "sse",
    "streamable_http": "streamable_http",
    "streamable-http": "streamable_http",
    "streamableHttp": "streamable_http",
    "http": "streamable_http",
}


def mcp_tools_from_server(
    command: str | Sequence[str] | None = None,
    *,
    args: Sequence[str] = (),
    env: Sequence[str] | Mapping[str, str] = (),
    cwd: str | os.PathLike[str] | None = None,
    url: str | None = None,
    transport: str | None = None,
    headers: Mapping[str, str] | None = None,
    name: str | None = None,
    prefix: str = "",
    allow: Sequence[str] | None = None,
    parallel_safe: bool = False,
) -> McpTools:
    """Describe one MCP server whose tools an Agent may call. Nothing connects here.

    Give either ``command`` (a stdio server the worker starts) or ``url`` (an HTTP server).

    Args:
        command: The executable, or a whole argv list (``["python", "server.py"]``).
        args: More arguments for ``command``.
        env: Variables for a stdio server: names passed through from the worker's environment
            (``["API_TOKEN"]``), or a mapping of server variable to reference
            (``{"TOKEN": "MY_TOKEN"}``, ``{"AUTH": "Bearer ${MY_TOKEN}"}``). Never values.
        cwd: The stdio server's working directory on the worker.
        url: The endpoint of an HTTP server.
        transport: ``"sse"`` or ``"streamable_http"`` (``"http"`` also works); by default a
            url ending in ``/sse`` means SSE, any other streamable HTTP.
        headers: HTTP headers, each mapped to a reference (``{"Authorization":
            "Bearer ${MCP_TOKEN}"}``); the worker fills in its environment.
        name: A label for messages (default: the command or url).
        prefix: Put before every tool name the model sees.
        allow: Only these server tool names (``fnmatch`` patterns allowed) are offered.
        parallel_safe: Let calls to this server overlap.

    Returns:
        The tool set, to pass in an Agent's ``tools``.

    Raises:
        ConfigError: Neither or both of ``command`` and ``url``, or an invalid field (for
            example a literal value where a reference belongs).
    """
    if (command is None) == (url is None):
        raise ConfigError("mcp_tools_from_server needs exactly one of command= and url=")
    fields: dict[str, Any] = {"name": name}
    if command is not None:
        argv = [command] if isinstance(command, str) else list(command)
        if not argv:
            raise ConfigError("mcp_tools_from_server: command is empty")
        fields.update(
            _stdio_fields("mcp_tools_from_server", transport, argv, args),
            env=list(env) if not isinstance(env, Mapping) else dict(env),
            cwd=None if cwd is None else os.fspath(cwd),
        )
    else:
        assert url is not None
        if args or env or cwd is not None:
            raise ConfigError("args, env and cwd are for stdio servers (command=), not url=")
        fields.update(transport=_transport(url, transport), url=url, headers=dict(headers or {}))
    return McpTools(
        server=_spec(fields, "mcp_tools_from_server"),
        prefix=prefix,
        allow=None if allow is None else tuple(allow),
        parallel_safe=parallel_safe,
    )


def mcp_tools_from_config(
    config: Mapping[str, Any] | str | os.PathLike[str],
    *,
    servers: Sequence[str] | None = None,
    prefix_server_names: bool = False,
) -> tuple[McpTools, ...]:
    """Tool sets for the servers of an MCP config (the common ``mcpServers`` format).

    ::

        {"mcpServers": {
            "time": {"command": "mcp-server-time", "args": ["--local-timezone", "UTC"]},
            "git": {"command": "mcp-server-git", "env": {"GIT_TOKEN": "${GIT_TOKEN}"}},
            "docs": {"url": "http://127.0.0.1:8000/mcp", "headers": {"Authorization":
                     "Bearer ${DOCS_TOKEN}"}},
            "events": {"url": "http://127.0.0.1:8001/sse", "transport": "sse"}}}

    ``servers`` (VS Code) and OpenRath's ``{"mcp": {"servers": ...}}`` are read too; a
    ``command`` may be an argv list; ``type`` is accepted for ``transport``; entries with
    ``"disabled": true`` are skipped; other keys are ignored. ``env`` and ``headers`` values
    must be references (``${NAME}`` or a bare ``NAME``), never literal values. Read a file in
    client code and pass the result into a workflow: reading files is not workflow code.

    Args:
        config: The parsed config, or the path of a JSON file.
        servers: Only these server names (in this order); all enabled ones by default.
        prefix_server_names: Prefix each tool name with ``<server>_``.

    Returns:
        One tool set per server.

    Raises:
        ConfigError: The file cannot be read, a server is unknown or malformed.
    """
    data = _load(config)
    table = _servers_table(data)
    if servers is None:
        names = [name for name, entry in table.items() if not _disabled(entry)]
    else:
        missing = [name for name in servers if name not in table]
        if missing:
            raise ConfigError(
                f"no MCP server named {missing[0]!r} in the config; "
                f"available: {', '.join(table) or 'none'}"
            )
        names = list(servers)
    return tuple(
        McpTools(
            server=_entry_spec(name, table[name]),
            prefix=f"{name}_" if prefix_server_names else "",
        )
        for name in names
    )


def _load(config: Mapping[str, Any] | str | os.PathLike[str]) -> Mapping[str, Any]:
    if isinstance(config, Mapping):
        return config
    path = Path(config)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read MCP config {str(path)!r}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"MCP config {str(path)!r} is not valid JSON: {exc.msg} at line {exc.lineno} "
            f"column {exc.colno}"
        ) from None
    if not isinstance(data, Mapping):
        raise ConfigError(f"MCP config {str(path)!r} must be a JSON object")
    return data


def _servers_table(data: Mapping[str, Any]) -> Mapping[str, Any]:
    for table in (data.get("mcpServers"), data.get("servers"), _nested(data)):
        if isinstance(table, Mapping):
            return table
    raise ConfigError('an MCP config needs an "mcpServers" object: {"mcpServers": {name: {...}}}')


def _nested(data: Mapping[str, Any]) -> Any:
    mcp = data.get("mcp")
    return mcp.get("servers") if isinstance(mcp, Mapping) else None


def _disabled(entry: Any) -> bool:
    return isinstance(entry, Mapping) and entry.get("disabled") is True


def _entry_spec(name: str, entry: Any) -> McpServerSpec:
    where = f"MCP server {name!r}"
    if not isinstance(entry, Mapping):
        raise ConfigError(f"{where}: expected an object with a command or a url")
    command, url = entry.get("command"), entry.get("url")
    transport = entry.get("transport", entry.get("type"))
    fields: dict[str, Any] = {"name": name}
    if command is not None and url is None:
        argv = [command] if isinstance(command, str) else command
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
            raise ConfigError(f"{where}: command must be a string or a non-empty list of strings")
        stdio = _stdio_fields(where, transport, argv, entry.get("args", ()))
        fields.update(stdio, env=entry.get("env") or {}, cwd=entry.get("cwd"))
    elif url is not None and command is None:
        if not isinstance(url, str):
            raise ConfigError(f"{where}: url must be a string")
        fields.update(
            transport=_transport(url, transport, where),
            url=url,
            headers=entry.get("headers") or {},
        )
    else:
        raise ConfigError(f"{where}: give exactly one of command and url")
    return _spec(fields, where)


def _stdio_fields(where: str, transport: Any, argv: Sequence[str], args: Any) -> dict[str, Any]:
    """A stdio server's transport, command and args (``transport`` may only be ``"stdio"``)."""
    if transport not in (None, "stdio"):
        raise ConfigError(f"{where}: a command runs over stdio, not {transport!r}")
    return {"transport": "stdio", "command": argv[0], "args": (*argv[1:], *args)}


def _transport(url: str, transport: Any, where: str = "mcp_tools_from_server") -> McpTransport:
    if transport is None:
        return "sse" if url.rstrip("/").endswith("/sse") else "streamable_http"
    if not isinstance(transport, str) or transport not in _TRANSPORT_ALIASES:
        raise ConfigError(
            f"{where}: unknown transport {transport!r}; use 'sse' or 'streamable_http'"
        )
    resolved = _TRANSPORT_ALIASES[transport]
    if resolved == "stdio":
        raise ConfigError(f"{where}: a url is served over sse or streamable_http, not stdio")
    return resolved


def _spec(fields: dict[str, Any], where: str) -> McpServerSpec:
    try:
        return McpServerSpec(**fields)
    except ValidationError as exc:
        problems = "; ".join(_problem(error) for error in exc.errors())
        raise ConfigError(f"{where}: {problems}") from None


def _problem(error: Any) -> str:
    location = ".".join(str(part) for part in error.get("loc", ()))
    message = str(error.get("msg", "invalid"))
    message = message.removeprefix("Value error, ")
    return f"{location}: {message}" if location else message
