"""MCP fixtures: the test server on three transports, and a real Temporal worker running the
MCP activities (``McpHarness``) the way the session loop will.

The HTTP servers start once per test session as subprocesses on 127.0.0.1 (ephemeral ports);
each prints ``READY <url>`` once its socket listens, and the fixture waits for that line with a
bound. (The helpers live here, not in a module, because ``tests/mcp`` cannot be imported as
``mcp``: that name is the SDK's.)
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from temporalio import workflow
from temporalio.client import Client
from temporalio.common import RetryPolicy
from temporalio.worker import Worker

from rath.activities.mcp import McpActivities
from rath.contracts.mcp import McpCallArgs, McpListArgs
from rath.contracts.tools import RunToolResult
from rath.session import ChunkKind
from rath.session.chunk import ChunkRow
from rath.store import ChunkStore
from rath.tools.mcp import McpServerSpec, McpToolList

SERVER = Path(__file__).with_name("mcp_test_server.py")
TRANSPORTS = ("stdio", "sse", "streamable_http")
TIMEOUT = 60.0


def stdio_spec(**fields: Any) -> McpServerSpec:
    """The test server over stdio (a subprocess of the worker)."""
    return McpServerSpec(
        transport="stdio", command=sys.executable, args=(str(SERVER), "stdio"), **fields
    )


class ListInput(BaseModel):
    args: McpListArgs
    attempts: int = 1


class CallInput(BaseModel):
    args: McpCallArgs
    attempts: int = 1
    heartbeat_seconds: float | None = None


def _retry(attempts: int) -> RetryPolicy:
    return RetryPolicy(initial_interval=timedelta(milliseconds=50), maximum_attempts=attempts)


@workflow.defn(name="test.McpList", sandboxed=False)
class McpListWorkflow:
    @workflow.run
    async def run(self, input: ListInput) -> McpToolList:
        return await workflow.execute_activity_method(
            McpActivities.list_tools,
            input.args,
            start_to_close_timeout=timedelta(seconds=60),
            retry_policy=_retry(input.attempts),
        )


@workflow.defn(name="test.McpCall", sandboxed=False)
class McpCallWorkflow:
    @workflow.run
    async def run(self, input: CallInput) -> RunToolResult:
        heartbeat = input.heartbeat_seconds
        return await workflow.execute_activity_method(
            McpActivities.call_tool,
            input.args,
            start_to_close_timeout=timedelta(seconds=60),
            heartbeat_timeout=None if heartbeat is None else timedelta(seconds=heartbeat),
            retry_policy=_retry(input.attempts),
        )


class McpHarness:
    """Runs the MCP activities through a real worker; calls are stored as assistant rows."""

    def __init__(self, client: Client, queue: str, store: ChunkStore, acts: McpActivities):
        self.client = client
        self.queue = queue
        self.store = store
        self.activities = acts

    async def list_tools(self, spec: McpServerSpec, *, attempts: int = 1) -> McpToolList:
        """Run ``rath.mcp.list_tools`` in a workflow of its own."""
        return await self._run(
            McpListWorkflow.run, ListInput(args=McpListArgs(server=spec), attempts=attempts)
        )

    async def call(
        self,
        spec: McpServerSpec,
        tool: str,
        arguments: Mapping[str, Any] | str,
        *,
        model_name: str | None = None,
        attempts: int = 1,
        heartbeat_seconds: float | None = None,
    ) -> tuple[RunToolResult, dict[str, Any]]:
        """Run one ``rath.mcp.call_tool`` in a workflow; returns the result and parsed body."""
        raw = arguments if isinstance(arguments, str) else json.dumps(dict(arguments))
        call = {
            "id": f"call_{uuid.uuid4().hex[:6]}",
            "type": "function",
            "function": {"name": model_name or tool, "arguments": raw},
        }
        row = ChunkRow(kind=ChunkKind.ASSISTANT, payload={"content": None, "tool_calls": [call]})
        args = McpCallArgs(
            server=spec, assistant=self.store.put_row(row), call_index=0, tool_name=tool
        )
        done = await self._run(
            McpCallWorkflow.run,
            CallInput(args=args, attempts=attempts, heartbeat_seconds=heartbeat_seconds),
        )
        stored = self.store.get_row(done.result)
        assert stored.kind is ChunkKind.TOOL_RESULT
        assert stored.payload["tool_call_id"] == call["id"]
        assert stored.payload["name"] == (model_name or tool)
        return done, json.loads(stored.payload["content"])

    async def _run(self, run: Callable[..., Any], arg: BaseModel) -> Any:
        self.last_workflow_id = f"mcp-test-{uuid.uuid4().hex[:8]}"
        return await asyncio.wait_for(
            self.client.execute_workflow(run, arg, id=self.last_workflow_id, task_queue=self.queue),
            TIMEOUT,
        )


HarnessFactory = Callable[..., AbstractAsyncContextManager[McpHarness]]


@pytest.fixture
def make_harness(bare_client: Client, tmp_path: Path) -> HarnessFactory:
    """``async with make_harness(idle_timeout=..., environ=...) as h``: a worker and its pool.

    The client has no Rath plugin: the harness registers its own MCP activities.
    """

    @asynccontextmanager
    async def factory(**options: Any) -> AsyncIterator[McpHarness]:
        store = ChunkStore(tmp_path / f"store-{uuid.uuid4().hex[:6]}")
        acts = McpActivities(store, **options)
        queue = f"mcp-{uuid.uuid4().hex[:8]}"
        try:
            async with Worker(
                bare_client,
                task_queue=queue,
                workflows=[McpListWorkflow, McpCallWorkflow],
                activities=[acts.list_tools, acts.call_tool],
            ):
                yield McpHarness(bare_client, queue, store, acts)
        finally:
            await acts.close()

    return factory


@pytest.fixture
async def harness(make_harness: HarnessFactory) -> AsyncIterator[McpHarness]:
    """A worker with default pool settings."""
    async with make_harness() as h:
        yield h


async def start_http_server(
    transport: str, port: int = 0
) -> tuple[asyncio.subprocess.Process, str]:
    """Start the test server on an HTTP transport; returns it and its url once it listens."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(SERVER), transport, str(port), stdout=asyncio.subprocess.PIPE
    )
    assert proc.stdout is not None
    try:
        line = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode()
    except BaseException:
        await stop_server(proc)
        raise
    if not line.startswith("READY "):
        await stop_server(proc)
        raise AssertionError(f"the {transport} test server did not start: {line!r}")
    return proc, line.split()[1]


async def stop_server(proc: asyncio.subprocess.Process) -> None:
    """Terminate a server process and reap it (killed if it does not exit within 10 s)."""
    if proc.returncode is None:
        proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), 10)
        except TimeoutError:
            proc.kill()
            await proc.wait()


@pytest.fixture(scope="session")
async def http_urls() -> AsyncIterator[dict[str, str]]:
    """The test server on SSE and on streamable HTTP: transport -> endpoint url."""
    procs: list[asyncio.subprocess.Process] = []
    urls: dict[str, str] = {}
    try:
        for transport in ("sse", "streamable_http"):
            proc, urls[transport] = await start_http_server(transport)
            procs.append(proc)
        yield urls
    finally:
        for proc in procs:
            await stop_server(proc)


@pytest.fixture
async def http_server() -> AsyncIterator[Callable[..., Awaitable[tuple[Any, str]]]]:
    """``await http_server(transport, port=0)``: a server of this test's own, stopped after it."""
    procs: list[asyncio.subprocess.Process] = []

    async def start(transport: str, port: int = 0) -> tuple[Any, str]:
        proc, url = await start_http_server(transport, port)
        procs.append(proc)
        return proc, url

    try:
        yield start
    finally:
        for proc in procs:
            await stop_server(proc)


@pytest.fixture(params=TRANSPORTS)
def spec(request: pytest.FixtureRequest, http_urls: dict[str, str]) -> McpServerSpec:
    """The test server's spec, once per transport."""
    transport = request.param
    if transport == "stdio":
        return stdio_spec(name="test-stdio")
    return McpServerSpec(transport=transport, url=http_urls[transport], name=f"test-{transport}")


@pytest.fixture
def stdio() -> Callable[..., McpServerSpec]:
    """``stdio(**fields)``: the test server's stdio spec, with extra spec fields."""
    return stdio_spec
