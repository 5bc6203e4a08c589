"""A small MCP server for the tests, written with the official SDK, on several transports.

Usage: ``python mcp_test_server.py stdio | sse | streamable_http | legacy_http [port]``
(``legacy_http``: a stateful server of the earlier protocol, see :class:`LegacySessionApp`).
For the HTTP transports it binds 127.0.0.1 (on an ephemeral port unless one is given) and,
once the socket listens, prints one line ``READY <url>`` on stdout (connections made after
that line queue until the app serves them).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import socket
import sys
import uuid
from typing import Any

from mcp import MCPError
from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("rath-test", instructions="Tools for Rath's MCP tests.")

# The smallest valid PNG (1x1, transparent), to check how non-text content is reported.
_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
)


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def fail(message: str) -> str:
    """Always fail with the message (an isError result)."""
    raise ToolError(message)


@server.tool()
async def slow(seconds: float) -> str:
    """Sleep, then answer (a long call)."""
    await asyncio.sleep(seconds)
    return f"slept {seconds}"


@server.tool()
def pid() -> int:
    """The server process id (tests check that connections are reused)."""
    return os.getpid()


@server.tool(structured_output=False)
def picture() -> list[object]:
    """A caption and a tiny PNG image (non-text content)."""
    return ["a tiny picture", Image(data=_PNG, format="png")]


@server.tool()
def big(size: int) -> str:
    """A string of ``size`` x characters (output caps)."""
    return "x" * size


@server.tool()
def refuse() -> str:
    """Answer with a JSON-RPC error instead of a result."""
    raise MCPError(code=-32602, message="refused on purpose")


@server.tool()
def env_digest(name: str) -> str:
    """sha256 of an environment variable's value (so tests never print the value)."""
    return _digest(os.environ.get(name))


@server.tool()
def header_digest(name: str, ctx: Context) -> str:
    """sha256 of an HTTP request header's value."""
    headers = ctx.headers or {}
    return _digest(headers.get(name.lower()))


def _digest(value: str | None) -> str:
    return "unset" if value is None else hashlib.sha256(value.encode()).hexdigest()


class LegacySessionApp:
    """A stateful streamable-HTTP server of protocol 2025-06-18, whose sessions can be lost.

    The official server negotiates the current, sessionless protocol; servers of the earlier
    one give each client a session id and answer a request with an unknown id with HTTP 404
    "Session not found" (a restart behind a proxy, an expired session). Tools: ``pid`` and
    ``forget_sessions``. Raw ASGI, just enough of the protocol for the SDK's client.
    """

    def __init__(self) -> None:
        self.sessions: set[str] = set()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        if scope["method"] == "DELETE":
            await self._reply(send, 200)
        elif scope["method"] != "POST":
            await self._reply(send, 405)  # no standalone event stream
        else:
            await self._post(json.loads(body), headers.get("mcp-session-id"), send)

    async def _post(self, request: dict[str, Any], session: str | None, send: Any) -> None:
        method, call_id = request.get("method"), request.get("id")
        if method == "initialize":
            session = uuid.uuid4().hex
            self.sessions.add(session)
            result = {
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "legacy", "version": "1"},
            }
            await self._answer(send, call_id, result, session)
        elif session not in self.sessions:
            error = {"code": -32600, "message": "Session not found"}
            await self._reply(send, 404, {"jsonrpc": "2.0", "id": None, "error": error})
        elif call_id is None:
            await self._reply(send, 202)  # a notification
        elif method == "tools/list":
            schema = {"type": "object", "properties": {}}
            tools = [{"name": name, "inputSchema": schema} for name in ("pid", "forget_sessions")]
            await self._answer(send, call_id, {"tools": tools}, session)
        elif method == "tools/call":
            if request["params"]["name"] == "forget_sessions":
                text = str(len(self.sessions))
                self.sessions.clear()
            else:
                text = str(os.getpid())
            result = {"content": [{"type": "text", "text": text}], "isError": False}
            await self._answer(send, call_id, result, session)
        else:
            await self._answer(send, call_id, {}, session)

    async def _answer(self, send: Any, call_id: Any, result: Any, session: str) -> None:
        await self._reply(send, 200, {"jsonrpc": "2.0", "id": call_id, "result": result}, session)

    @staticmethod
    async def _reply(send: Any, status: int, body: Any = None, session: str | None = None) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        headers = [(b"content-type", b"application/json")]
        if session is not None:
            headers.append((b"mcp-session-id", session.encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": data})


async def _serve_http(transport: str, port: int) -> None:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(64)
    port = sock.getsockname()[1]
    app: Any
    if transport == "sse":
        app, path = server.sse_app(host="127.0.0.1"), "/sse"
    elif transport == "legacy_http":
        app, path = LegacySessionApp(), "/mcp"
    else:
        app, path = server.streamable_http_app(host="127.0.0.1"), "/mcp"
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    print(f"READY http://127.0.0.1:{port}{path}", flush=True)
    await uvicorn.Server(config).serve(sockets=[sock])


def main() -> None:
    """Serve on the transport named by the first argument."""
    transport = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if transport == "stdio":
        server.run("stdio")
    elif transport in ("sse", "streamable_http", "legacy_http"):
        asyncio.run(_serve_http(transport, int(sys.argv[2]) if len(sys.argv) > 2 else 0))
    else:
        raise SystemExit(f"unknown transport {transport!r}")


if __name__ == "__main__":
    main()
