"""The MCP activities: list a server's tools, and run one MCP tool call.

See docs/mcp.md, "Where the code is".
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager

from temporalio import activity
from temporalio.exceptions import ApplicationError

from rath.activities._boundary import activity_errors
from rath.activities._heartbeat import heartbeating
from rath.activities.tools import PREVIEW_CHARS
from rath.contracts.mcp import CALL_MCP_TOOL, LIST_MCP_TOOLS, McpCallArgs, McpListArgs
from rath.contracts.tools import RunToolResult
from rath.llm.tool_args import parse_arguments
from rath.session.chunk import tool_feedback_chunk
from rath.store import ChunkStore
from rath.store.call_journal import call_key
from rath.tools.bodies import error_body
from rath.tools.builtins import ToolOutcome
from rath.tools.mcp import (
    DEFAULT_MAX_OUTPUT_BYTES,
    McpError,
    McpPool,
    McpToolList,
    render_result,
)
from rath.utils.text import preview

IDEMPOTENCY_META_KEY = "rath/idempotency-key"


class McpActivities:
    """MCP activities and the worker's connection pool; construct one per worker.

    Args:
        store: The chunk store tool calls and results live in.
        idle_timeout: Seconds an unused server connection stays open.
        connect_timeout: Seconds to wait for a server to start and answer its handshake.
        max_output_bytes: Cap on a result's rendered text (as for built-in tools).
        environ: Where ``env``/``headers`` references resolve (default: ``os.environ``).
    """

    def __init__(
        self,
        store: ChunkStore,
        *,
        idle_timeout: float = 300.0,
        connect_timeout: float = 30.0,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self._store = store
        self._max_output_bytes = max_output_bytes
        self.pool = McpPool(
            idle_timeout=idle_timeout, connect_timeout=connect_timeout, environ=environ
        )

    @LIST_MCP_TOOLS.implement
    async def list_tools(self, args: McpListArgs) -> McpToolList:
        """List the server's tools (names, descriptions, JSON-schema parameters)."""
        with activity_errors(), _mcp_errors():
            async with heartbeating():
                return await self.pool.list_tools(args.server)

    @CALL_MCP_TOOL.implement
    async def call_tool(self, args: McpCallArgs) -> RunToolResult:
        """Run one MCP tool call and store its TOOL_RESULT row.

        ``isError`` results and JSON-RPC errors from the server become tool error bodies for
        the model; a server that cannot be reached fails the activity (retryable).
        """
        info = activity.info()
        run_id = args.origin_run_id or info.workflow_run_id  # a reset run: its original's
        key = call_key(info.workflow_id or "", run_id or "", info.activity_id)
        with activity_errors(), _mcp_errors():
            assistant = await self._store.run_io(self._store.get_row, args.assistant)
            call = (assistant.payload.get("tool_calls") or [])[args.call_index]
            arguments, problem = parse_arguments(call["function"]["arguments"])
            if arguments is None:
                reason = problem or "invalid arguments"
                outcome = ToolOutcome(error_body("invalid_tool_arguments", reason), False)
            else:
                outcome = await self._call(args, arguments, key)
        row = tool_feedback_chunk(call["id"], call["function"]["name"], outcome.body)
        return RunToolResult(
            result=await self._store.run_io(self._store.put_row, row.stamped(time.time())),
            ok=outcome.ok,
            preview=preview(outcome.body, PREVIEW_CHARS),
        )

    async def _call(self, args: McpCallArgs, arguments: dict[str, object], key: str) -> ToolOutcome:
        try:
            async with heartbeating():
                result = await self.pool.call_tool(
                    args.server,
                    args.tool_name,
                    arguments,
                    meta={IDEMPOTENCY_META_KEY: key},
                    timeout=_answer_timeout(),
                )
        except McpError as exc:
            if exc.code is None:
                raise
            # The server answered with a JSON-RPC error: the model's call was refused.
            return ToolOutcome(error_body("mcp_error", str(exc)), False)
        return render_result(result, self._max_output_bytes)

    async def close(self) -> None:
        """Close every pooled server connection (call at worker shutdown)."""
        await self.pool.close()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Wrap a worker's run; closes the pool when the worker stops (a plugin ``run_context``)."""
        try:
            yield
        finally:
            await self.close()


def _answer_timeout() -> float | None:
    """How long a call may wait for its answer: a little less than the attempt may take.

    The activity heartbeats while it waits, so without this a stuck server would hold the
    attempt until its start-to-close timeout; this way it fails retryably a little earlier,
    with a message that says what happened, and the stuck connection is dropped.
    """
    limit = activity.info().start_to_close_timeout
    if not limit:
        return None
    seconds = limit.total_seconds()
    return max(seconds - min(5.0, seconds / 10), 0.1)


@contextmanager
def _mcp_errors() -> Iterator[None]:
    """Translate :class:`McpError` into a Temporal failure, retryable or not as it says."""
    try:
        yield
    except McpError as exc:
        raise ApplicationError(str(exc), type="McpError", non_retryable=not exc.retryable) from None
