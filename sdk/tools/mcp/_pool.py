"""``McpPool``: one live MCP connection per server, shared by every call on a worker.

See docs/mcp.md, "Where the code is".
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from rath.contracts.mcp import McpServerSpec, McpToolInfo, McpToolList
from rath.errors import RathError
from rath.tools.mcp._connect import (
    is_connection_lost,
    is_request_timeout,
    list_all_tools,
    new_client,
    translate,
)
from rath.tools.mcp._errors import McpError

if TYPE_CHECKING:
    from mcp import Client
    from mcp_types import CallToolResult, Tool

T = TypeVar("T")

_log = logging.getLogger(__name__)


@dataclass(eq=False)
class _Connection:
    spec: McpServerSpec
    ready: asyncio.Future[None]
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    done: asyncio.Event = field(default_factory=asyncio.Event)
    client: Client | None = None
    task: asyncio.Task[None] | None = None
    in_flight: int = 0
    last_used: float = field(default_factory=time.monotonic)
    closing: bool = False

    @property
    def usable(self) -> bool:
        return self.client is not None and not self.closing and not self.done.is_set()


class McpPool:
    """Live MCP client sessions of one worker, keyed by :attr:`McpServerSpec.key`.

    Use it from one event loop (the worker's). Safe for concurrent calls: one connection is
    opened per server however many calls arrive at once, and calls share it.

    Args:
        idle_timeout: Seconds a connection may stay unused before it is closed.
        connect_timeout: Seconds to wait for a server to start and finish its handshake.
        close_timeout: Seconds :meth:`close` waits for a connection to shut down cleanly.
        environ: Where ``env`` and ``headers`` references resolve (default: ``os.environ``,
            read at each connect).
    """

    def __init__(
        self,
        *,
        idle_timeout: float = 300.0,
        connect_timeout: float = 30.0,
        close_timeout: float = 10.0,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.idle_timeout = idle_timeout
        self.connect_timeout = connect_timeout
        self.close_timeout = close_timeout
        self._environ = environ
        self._conns: dict[str, _Connection] = {}
        self._live: set[_Connection] = set()
        self._opening: dict[str, asyncio.Task[_Connection]] = {}

    @property
    def environ(self) -> Mapping[str, str]:
        """The environment references resolve against."""
        return os.environ if self._environ is None else self._environ

    async def list_tools(self, spec: McpServerSpec) -> McpToolList:
        """The server's tools (every page), with object schemas.

        Raises:
            McpError: The server could not be reached or refused the request.
            ConfigError: The spec cannot be started here (missing command or variable).
        """
        tools = await self._use(spec, list_all_tools)
        return McpToolList(server_key=spec.key, tools=tuple(_info(tool) for tool in tools))

    async def call_tool(
        self,
        spec: McpServerSpec,
        name: str,
        arguments: dict[str, Any],
        *,
        meta: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> CallToolResult:
        """Call one tool; a result with ``is_error`` is returned, not raised.

        Raises:
            McpError: The connection failed (twice), the answer did not come in time
                (retryable), or the server answered with a JSON-RPC error (then
                :attr:`McpError.code` is set).
            ConfigError: The spec cannot be started here.
        """

        async def call(client: Client) -> CallToolResult:
            return await client.call_tool(
                name,
                arguments,
                read_timeout_seconds=timeout,
                meta=meta,  # type: ignore[arg-type]
            )

        return await self._use(spec, call)

    def is_open(self, spec: McpServerSpec) -> bool:
        """Whether a live connection to ``spec``'s server is pooled."""
        conn = self._conns.get(spec.key)
        return conn is not None and conn.usable

    async def wait_closed(self, spec: McpServerSpec) -> None:
        """Wait until the pooled connection to ``spec``'s server (if any) has shut down."""
        for conn in [conn for conn in self._live if conn.spec.key == spec.key]:
            await conn.done.wait()

    async def close(self) -> None:
        """Close every connection (servers started over stdio exit). The pool stays usable."""
        live = list(self._live)
        for conn in live:
            self._discard(conn)
        tasks = [conn.task for conn in live if conn.task is not None]
        if not tasks:
            return
        _, pending = await asyncio.wait(tasks, timeout=self.close_timeout)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=self.close_timeout)

    async def _use(self, spec: McpServerSpec, op: Callable[[Client], Awaitable[T]]) -> T:
        for attempt in range(2):
            try:
                conn = await self._acquire(spec)
            except RathError:
                raise
            except Exception as exc:
                raise translate(exc, spec, self.environ) from exc
            try:
                assert conn.client is not None
                return await op(conn.client)
            except Exception as exc:
                if is_request_timeout(exc):
                    self._discard(conn)  # a later call must not queue behind a stuck server
                    raise translate(exc, spec, self.environ) from exc
                lost = conn.done.is_set() or is_connection_lost(exc)
                if lost:
                    self._discard(conn)
                    if attempt == 0:
                        _log.info("MCP server %r: connection lost, reconnecting", spec.label())
                        continue
                raise translate(exc, spec, self.environ) from exc
            finally:
                conn.in_flight -= 1
                conn.last_used = time.monotonic()
                if conn.in_flight == 0:
                    conn.wake.set()  # the owner restarts its idle countdown from now
        raise AssertionError("unreachable")

    async def _acquire(self, spec: McpServerSpec) -> _Connection:
        conn = self._conns.get(spec.key)
        if conn is None or not conn.usable:
            # Concurrent callers share one attempt (and its outcome): one after another,
            # each would start its own server and wait its own connect timeout.
            opening = self._opening.get(spec.key)
            if opening is None:
                opening = asyncio.ensure_future(self._open(spec))
                self._opening[spec.key] = opening
                opening.add_done_callback(functools.partial(self._opened, spec.key))
            conn = await asyncio.shield(opening)
        # No await since the checks above: the owner cannot have idled this connection out.
        conn.in_flight += 1
        return conn

    def _opened(self, key: str, task: asyncio.Task[_Connection]) -> None:
        if self._opening.get(key) is task:
            del self._opening[key]
        if not task.cancelled():
            task.exception()  # every waiter gets it; this only keeps asyncio from warning

    async def _open(self, spec: McpServerSpec) -> _Connection:
        client = new_client(spec, self.environ, self.connect_timeout)
        conn = _Connection(spec, ready=asyncio.get_running_loop().create_future())
        conn.task = asyncio.create_task(self._own(conn, client), name=f"rath-mcp:{spec.label()}")
        self._live.add(conn)
        try:
            # asyncio.wait, not wait_for: on Python 3.11 wait_for can swallow a cancel that
            # lands as the handshake completes, and a cancelled activity would call anyway.
            done, _ = await asyncio.wait({conn.ready}, timeout=self.connect_timeout)
        except asyncio.CancelledError:
            await self._abandon(conn)
            raise
        if not done:
            await self._abandon(conn)
            raise McpError(
                f"MCP server {spec.label()!r}: no handshake within {self.connect_timeout:g}s",
                retryable=True,
            )
        conn.ready.result()  # the handshake's own failure, if it failed
        self._conns[spec.key] = conn
        return conn

    async def _abandon(self, conn: _Connection) -> None:
        assert conn.task is not None
        conn.task.cancel()
        await asyncio.wait({conn.task}, timeout=self.close_timeout)

    async def _own(self, conn: _Connection, client: Client) -> None:
        try:
            async with client:
                conn.client = client
                conn.last_used = time.monotonic()  # idle time counts from the handshake
                if not conn.ready.done():
                    conn.ready.set_result(None)
                await self._serve(conn)
        except asyncio.CancelledError:
            if not conn.ready.done():
                conn.ready.cancel()
            raise
        except Exception as exc:
            if not conn.ready.done():
                conn.ready.set_exception(exc)
                conn.ready.exception()  # retrieved by the opener; silence asyncio's warning
            else:
                _log.info("MCP server %r: connection ended (%s)", conn.spec.label(), exc)
        finally:
            conn.closing = True
            self._forget(conn)
            self._live.discard(conn)
            conn.done.set()

    async def _serve(self, conn: _Connection) -> None:
        """Keep the connection open until it is closed or has been idle too long."""
        while not conn.closing:
            timeout = self.idle_timeout
            if conn.in_flight == 0:
                timeout = conn.last_used + self.idle_timeout - time.monotonic()
                if timeout <= 0:
                    _log.debug("MCP server %r: idle, closing", conn.spec.label())
                    self._discard(conn)
                    return
            conn.wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await conn.wake.wait()

    def _discard(self, conn: _Connection) -> None:
        conn.closing = True
        self._forget(conn)
        conn.wake.set()

    def _forget(self, conn: _Connection) -> None:
        if self._conns.get(conn.spec.key) is conn:
            del self._conns[conn.spec.key]


def _info(tool: Tool) -> McpToolInfo:
    schema = dict(tool.input_schema or {})
    if schema.get("type") != "object":
        schema = {"type": "object", "properties": {}}
    schema.setdefault("properties", {})
    return McpToolInfo(name=tool.name, description=tool.description or "", parameters=schema)
