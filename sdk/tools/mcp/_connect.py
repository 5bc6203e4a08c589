"""Opening an ``mcp`` client for a spec, and turning the SDK's failures into Rath errors.

The ``mcp`` package is imported here lazily: it costs about a second to import, and only a
worker that actually talks to an MCP server should pay for it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from rath.contracts.mcp import McpServerSpec, referenced_names, resolve
from rath.errors import ConfigError, RathError
from rath.tools.mcp._errors import McpError

if TYPE_CHECKING:
    from mcp import Client
    from mcp.client._transport import TransportStreams
    from mcp_types import Tool

_CONNECTION_CLOSED = -32000  # the SDK's JSON-RPC code for "the connection went away"
_REQUEST_TIMEOUT = -32001  # the SDK's code for a request that got no answer in time
# Errors that say the session, not the request, is gone. The server forgot it (restarted
# behind a proxy, or expired it: HTTP 404 "Session not found"), or the SDK's HTTP transport
# stood in for an answer it never got. A new connection (a new session) may well work.
_SESSION_GONE = frozenset(
    {
        (-32600, "Session not found"),
        (-32600, "Session terminated"),
        (-32603, "Server returned an error response"),
    }
)
_RETRYABLE_STATUS = frozenset({408, 425, 429})
_READ_TIMEOUT = 300.0
_MAX_PAGES = 100  # a server whose tool list never ends cannot hang a listing


def new_client(spec: McpServerSpec, environ: Mapping[str, str], connect_timeout: float) -> Client:
    """A not-yet-entered ``mcp.Client`` for ``spec``, with its references resolved.

    Raises:
        ConfigError: A referenced environment variable is not set on this worker.
    """
    from mcp import Client
    from mcp.client.sse import sse_client

    if spec.transport == "stdio":
        assert spec.command is not None
        env = {name: resolve(ref, environ, f"env {name!r}") for name, ref in spec.env.items()}
        return stdio_client(spec.command, list(spec.args), env=env or None, cwd=spec.cwd)
    info = _client_info()
    assert spec.url is not None
    headers = {
        name: resolve(ref, environ, f"header {name!r}") for name, ref in spec.headers.items()
    }
    if spec.transport == "sse":
        transport = sse_client(spec.url, headers=headers or None, timeout=connect_timeout)
        return Client(transport, cache=None, client_info=info)
    transport = _streamable_http(spec.url, headers, connect_timeout)
    return Client(transport, cache=None, client_info=info)


def stdio_client(
    command: str, args: list[str], *, env: dict[str, str] | None, cwd: str | None = None
) -> Client:
    """A not-yet-entered ``mcp.Client`` that starts ``command`` (``env``: its whole env)."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=command, args=args, env=env, cwd=cwd)
    # The response cache is off: a tool list must be the server's current one.
    return Client(params, cache=None, client_info=_client_info())


async def list_all_tools(client: Client) -> list[Tool]:
    """Every page of an entered ``client``'s tool list (at most 100 pages)."""
    tools: list[Tool] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _client_info() -> Any:
    from mcp_types import Implementation

    return Implementation(name="rath", version=_version())


@asynccontextmanager
async def _streamable_http(
    url: str, headers: dict[str, str], connect_timeout: float
) -> AsyncIterator[TransportStreams]:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    # The SDK's own client settings (it builds one like this when given no headers); the long
    # read timeout lets a server hold a response stream open during a slow tool.
    timeout = httpx2.Timeout(connect_timeout, read=_READ_TIMEOUT)
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams


def is_connection_lost(exc: BaseException) -> bool:
    """Whether ``exc`` says the connection itself is gone (so a fresh one may work)."""
    import anyio
    from mcp import MCPError

    leaf = leaf_error(exc)
    if isinstance(leaf, MCPError):
        return _transport_failure(leaf)
    return isinstance(
        leaf,
        anyio.ClosedResourceError | anyio.BrokenResourceError | anyio.EndOfStream | OSError,
    )


def is_request_timeout(exc: BaseException) -> bool:
    """Whether ``exc`` says a request got no answer within its read timeout."""
    from mcp import MCPError

    leaf = leaf_error(exc)
    return isinstance(leaf, MCPError) and leaf.code == _REQUEST_TIMEOUT


def translate(exc: BaseException, spec: McpServerSpec, environ: Mapping[str, str]) -> RathError:
    """The Rath error for a failure of the ``mcp`` SDK or its transport.

    Messages never hold a secret: any resolved ``env`` or ``headers`` value is masked.
    """
    import httpx2
    from mcp import MCPError

    leaf = leaf_error(exc)
    where = f"MCP server {spec.label()!r}"
    if isinstance(leaf, RathError):
        return leaf
    if isinstance(leaf, MCPError):
        if leaf.code == _CONNECTION_CLOSED:
            return McpError(f"{where}: the connection closed", retryable=True)
        if leaf.code == _REQUEST_TIMEOUT:
            return McpError(f"{where}: no answer in time ({leaf.message})", retryable=True)
        if _transport_failure(leaf):
            return McpError(f"{where}: the session is gone ({leaf.message})", retryable=True)
        return McpError(
            f"{where}: {leaf.message} (code {leaf.code})", retryable=False, code=leaf.code
        )
    if spec.transport == "stdio" and isinstance(leaf, FileNotFoundError | PermissionError):
        return ConfigError(
            f"{where}: cannot start {spec.command!r} on this worker ({leaf.strerror}); "
            "install it or give its full path"
        )
    if isinstance(leaf, httpx2.HTTPStatusError):
        status = leaf.response.status_code
        retryable = status >= 500 or status in _RETRYABLE_STATUS
        return McpError(f"{where}: HTTP {status} from {spec.url}", retryable=retryable)
    if isinstance(leaf, TimeoutError):
        return McpError(f"{where}: timed out", retryable=True)
    detail = _masked(f"{type(leaf).__name__}: {leaf}", spec, environ)
    return McpError(f"{where}: {detail}", retryable=True)


def _transport_failure(error: Any) -> bool:
    """Whether an ``MCPError`` is about the connection or session, not the request."""
    return bool(error.code == _CONNECTION_CLOSED or (error.code, error.message) in _SESSION_GONE)


def _masked(text: str, spec: McpServerSpec, environ: Mapping[str, str]) -> str:
    for template in (*spec.env.values(), *spec.headers.values()):
        for name in referenced_names(template):
            value = environ.get(name)
            if value:
                text = text.replace(value, "***")
    return text


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rath")
    except PackageNotFoundError:
        return "0"


def leaf_error(exc: BaseException) -> BaseException:
    """The first real error inside (possibly nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
