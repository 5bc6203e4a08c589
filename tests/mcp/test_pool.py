"""``McpPool`` on its own: one connection per server under concurrency, reconnects, shutdown."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator

import pytest

from rath.tools.mcp import McpError, McpPool, McpServerSpec


@pytest.fixture
async def pool() -> AsyncIterator[McpPool]:
    pool = McpPool()
    yield pool
    await pool.close()


async def pid_of(pool: McpPool, spec: McpServerSpec) -> int:
    result = await pool.call_tool(spec, "pid", {})
    assert not result.is_error
    if result.structured_content is None:  # the legacy server answers in text
        return int(result.content[0].text)  # type: ignore[union-attr]
    return int(result.structured_content["result"])


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_concurrent_first_calls_open_one_connection(pool: McpPool, stdio) -> None:
    spec = stdio()
    pids = await asyncio.gather(*(pid_of(pool, spec) for _ in range(8)))
    assert len(set(pids)) == 1
    listed, pid = await asyncio.gather(pool.list_tools(spec), pid_of(pool, spec))
    assert pid == pids[0] and listed.tools


async def test_a_dead_server_is_restarted_once(pool: McpPool, stdio) -> None:
    spec = stdio()
    first = await pid_of(pool, spec)
    os.kill(first, signal.SIGKILL)
    second = await pid_of(pool, spec)  # the call finds the pipe closed and reconnects
    assert second != first and pool.is_open(spec)


async def test_a_call_in_flight_when_the_server_dies_is_retried_once(pool: McpPool, stdio) -> None:
    spec = stdio()
    await pid_of(pool, spec)
    slow = asyncio.create_task(pool.call_tool(spec, "slow", {"seconds": 2}))
    # Answered while the slow call (sent first, on the same connection) is still running.
    first = await pid_of(pool, spec)
    assert not slow.done()
    os.kill(first, signal.SIGKILL)
    result = await asyncio.wait_for(slow, 30)  # completes only on a second, fresh server
    assert not result.is_error and result.content[0].text == "slept 2.0"
    assert await pid_of(pool, spec) != first


async def test_close_stops_stdio_servers_and_the_pool_stays_usable(pool: McpPool, stdio) -> None:
    one, two = stdio(), stdio(cwd="/")
    assert one.key != two.key
    pids = [await pid_of(pool, one), await pid_of(pool, two)]
    assert pids[0] != pids[1]
    await pool.close()
    assert not any(alive(pid) for pid in pids)
    assert not pool.is_open(one) and not pool.is_open(two)
    assert await pid_of(pool, one) not in pids


@pytest.mark.parametrize("transport", ["sse", "streamable_http"])
async def test_a_restarted_http_server_is_reconnected(
    pool: McpPool, http_server, transport: str
) -> None:
    proc, url = await http_server(transport)
    spec = McpServerSpec(transport=transport, url=url)
    first = await pid_of(pool, spec)
    proc.terminate()
    await asyncio.wait_for(proc.wait(), 10)
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    _, again = await http_server(transport, port)
    assert again == url
    assert await pid_of(pool, spec) != first


async def test_a_server_that_forgot_the_session_gets_a_new_one(pool: McpPool, http_server) -> None:
    _, url = await http_server("legacy_http")
    spec = McpServerSpec(transport="streamable_http", url=url)
    first = await pid_of(pool, spec)
    assert (await pool.call_tool(spec, "forget_sessions", {})).content[0].text == "1"
    # The same server answers 404 "Session not found" now: the pool opens a new session.
    assert await pid_of(pool, spec) == first
    assert pool.is_open(spec)


async def test_a_call_not_answered_in_time_fails_retryably_and_drops_the_connection(
    pool: McpPool, stdio
) -> None:
    spec = stdio()
    first = await pid_of(pool, spec)
    with pytest.raises(McpError, match="no answer in time") as caught:
        await pool.call_tool(spec, "slow", {"seconds": 60}, timeout=0.5)
    assert caught.value.retryable and caught.value.code is None
    assert not pool.is_open(spec)  # it may be stuck: the next call starts a new server
    assert await pid_of(pool, spec) != first


async def test_an_unreachable_server_raises_a_retryable_error(pool: McpPool) -> None:
    spec = McpServerSpec(transport="streamable_http", url="http://127.0.0.1:9/mcp")
    with pytest.raises(McpError) as caught:
        await pool.list_tools(spec)
    assert caught.value.retryable and caught.value.code is None
    assert not pool.is_open(spec)


async def test_concurrent_callers_share_one_failing_connect(tmp_path) -> None:
    """A server that never finishes its handshake is started once, not once per caller."""
    starts = tmp_path / "starts"
    starts.mkdir()
    silent = (
        "import os, sys, time; "
        f"open(os.path.join({str(starts)!r}, str(os.getpid())), 'w').close(); time.sleep(60)"
    )
    spec = McpServerSpec(transport="stdio", command=sys.executable, args=("-c", silent))
    pool = McpPool(connect_timeout=0.5, close_timeout=2)
    try:
        outcomes = await asyncio.gather(
            *(pool.call_tool(spec, "pid", {}) for _ in range(4)), return_exceptions=True
        )
    finally:
        await pool.close()
    assert all(isinstance(o, McpError) and "no handshake" in str(o) for o in outcomes)
    assert len(list(starts.iterdir())) == 1
