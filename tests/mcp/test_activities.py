"""The MCP activities through a real worker, against the test server on all three transports."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import socket
from collections.abc import Callable

import pytest
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ActivityError, ApplicationError

from rath.tools.mcp import McpServerSpec, McpTools

EXPECTED_TOOLS = {"echo", "add", "fail", "slow", "pid", "picture", "big", "refuse"}


def decoded_payloads(node: object) -> str:
    """Every payload in a JSON history, base64-decoded and joined (to search for text)."""
    if isinstance(node, dict):
        parts = [decoded_payloads(value) for value in node.values()]
        data = node.get("data")
        if isinstance(data, str) and "metadata" in node:
            parts.append(base64.b64decode(data).decode("utf-8", errors="replace"))
        return "\n".join(parts)
    if isinstance(node, list):
        return "\n".join(decoded_payloads(item) for item in node)
    return ""


def failure_of(caught: pytest.ExceptionInfo[WorkflowFailureError]) -> ApplicationError:
    cause = caught.value.cause
    assert isinstance(cause, ActivityError)
    assert isinstance(cause.cause, ApplicationError)
    return cause.cause


async def test_list_tools_on_every_transport(harness, spec: McpServerSpec) -> None:
    listed = await harness.list_tools(spec)
    assert listed.server_key == spec.key
    tools = {tool.name: tool for tool in listed.tools}
    assert set(tools) >= EXPECTED_TOOLS
    add = tools["add"]
    assert add.description == "Add two integers."
    assert add.parameters["type"] == "object"
    assert set(add.parameters["properties"]) == {"a", "b"}
    assert add.parameters["required"] == ["a", "b"]
    assert tools["pid"].parameters["properties"] == {}
    # The list is plain data for workflow state, and binds to model-facing tools.
    bindings = McpTools(server=spec, prefix="t_", allow=("add", "echo")).bind(listed)
    assert [b.name for b in bindings] == ["t_echo", "t_add"]
    assert bindings[1].to_schema()["function"]["parameters"] == add.parameters


async def test_call_tool_on_every_transport(harness, spec: McpServerSpec) -> None:
    done, body = await harness.call(spec, "add", {"a": 2, "b": 40})
    assert body == {"text": "42"}
    assert done.ok and done.preview == '{"text": "42"}'
    done, body = await harness.call(spec, "echo", {"text": "héllo ✓"}, model_name="srv_echo")
    assert body == {"text": "héllo ✓"}


async def test_is_error_reaches_the_model_as_a_tool_error(harness, spec: McpServerSpec) -> None:
    done, body = await harness.call(spec, "fail", {"message": "disk on fire"})
    assert not done.ok
    assert body["ok"] is False and body["error_kind"] == "mcp_tool_error"
    assert "disk on fire" in body["message"]
    # Bad arguments are the server's to judge: its validation error is a tool error too.
    done, body = await harness.call(spec, "add", {"a": "two"})
    assert not done.ok and body["error_kind"] == "mcp_tool_error"
    assert "a" in body["message"]


async def test_a_json_rpc_error_is_a_tool_error(harness, spec: McpServerSpec) -> None:
    done, body = await harness.call(spec, "refuse", {})
    assert not done.ok and body["error_kind"] == "mcp_error"
    assert "refused on purpose" in body["message"] and "-32602" in body["message"]


async def test_arguments_that_are_not_json_never_reach_the_server(harness, stdio) -> None:
    spec = stdio()
    done, body = await harness.call(spec, "echo", '{"text": ')
    assert not done.ok and body["error_kind"] == "invalid_tool_arguments"
    assert not harness.activities.pool.is_open(spec)


async def test_non_text_content_is_summarised_and_output_is_capped(harness, stdio) -> None:
    spec = stdio()
    _, body = await harness.call(spec, "picture", {})
    assert body == {"text": "a tiny picture\n[image image/png, 67 bytes not shown]"}
    done, body = await harness.call(spec, "big", {"size": 200_000})
    assert done.ok and body["truncated"] is True and len(body["text"]) == 65536
    assert len(done.preview) <= 160


async def test_a_slow_call_heartbeats(harness, spec: McpServerSpec) -> None:
    # Without heartbeats a 1 s heartbeat timeout would fail this 2.5 s call (one attempt).
    done, body = await harness.call(
        spec, "slow", {"seconds": 2.5}, heartbeat_seconds=1.0, attempts=1
    )
    assert done.ok and body == {"text": "slept 2.5"}


async def test_one_stdio_server_serves_every_call_and_session(harness, stdio) -> None:
    spec = stdio()
    _, first = await harness.call(spec, "pid", {})
    await harness.list_tools(spec)
    _, second = await harness.call(spec, "pid", {})
    same_server_other_name = spec.model_copy(update={"name": "another label"})
    _, third = await harness.call(same_server_other_name, "pid", {})
    assert first == second == third  # one process for three workflow runs


async def test_an_idle_connection_closes_and_reopens(make_harness, stdio) -> None:
    spec = stdio()
    async with make_harness(idle_timeout=0.5) as harness:
        pool = harness.activities.pool
        _, first = await harness.call(spec, "pid", {})
        assert pool.is_open(spec)
        await asyncio.wait_for(pool.wait_closed(spec), 10)  # takes about idle_timeout
        assert not pool.is_open(spec)
        _, second = await harness.call(spec, "pid", {})
        assert second != first


async def test_env_and_headers_come_from_the_worker_not_history(
    make_harness, stdio, http_urls
) -> None:
    secret, token = "s3cret-value-1", "t0ken-value-2"
    environ = {"RATH_TEST_SRC": secret, "RATH_TEST_TOKEN": token}
    async with make_harness(environ=environ) as harness:
        spec = stdio(env={"RATH_TEST_DST": "RATH_TEST_SRC"})
        _, body = await harness.call(spec, "env_digest", {"name": "RATH_TEST_DST"})
        assert body == {"text": hashlib.sha256(secret.encode()).hexdigest()}
        history = await harness.client.get_workflow_handle(harness.last_workflow_id).fetch_history()
        text = decoded_payloads(history.to_json_dict())
        assert "${RATH_TEST_SRC}" in text and secret not in text
        # The worker's own environment is not passed on: only what the spec names.
        _, body = await harness.call(spec, "env_digest", {"name": "RATH_TEST_SRC"})
        assert body == {"text": "unset"}
        for transport in ("sse", "streamable_http"):
            remote = McpServerSpec(
                transport=transport,
                url=http_urls[transport],
                headers={"X-Test-Token": "Bearer ${RATH_TEST_TOKEN}"},
            )
            _, body = await harness.call(remote, "header_digest", {"name": "X-Test-Token"})
            assert body == {"text": hashlib.sha256(f"Bearer {token}".encode()).hexdigest()}


async def test_a_missing_variable_fails_at_once_naming_it(make_harness, stdio) -> None:
    async with make_harness(environ={}) as harness:
        spec = stdio(env=["RATH_TEST_UNSET"])
        with pytest.raises(WorkflowFailureError) as caught:
            await harness.list_tools(spec, attempts=3)
    failure = failure_of(caught)
    assert failure.type == "ConfigError" and failure.non_retryable
    assert "RATH_TEST_UNSET" in failure.message


async def test_a_missing_command_fails_at_once(harness) -> None:
    spec = McpServerSpec(transport="stdio", command="rath-no-such-mcp-server")
    with pytest.raises(WorkflowFailureError) as caught:
        await harness.list_tools(spec, attempts=3)
    failure = failure_of(caught)
    assert failure.type == "ConfigError" and failure.non_retryable
    assert "rath-no-such-mcp-server" in failure.message


@pytest.mark.parametrize("transport", ["sse", "streamable_http"])
async def test_an_unreachable_server_is_a_retryable_mcp_error(
    harness, transport: str, unused_port: Callable[[], int]
) -> None:
    spec = McpServerSpec(transport=transport, url=f"http://127.0.0.1:{unused_port()}/mcp")
    with pytest.raises(WorkflowFailureError) as caught:
        await harness.list_tools(spec, attempts=2)
    failure = failure_of(caught)
    assert failure.type == "McpError" and not failure.non_retryable
    assert "ConnectError" in failure.message


@pytest.fixture
def unused_port() -> Callable[[], int]:
    def pick() -> int:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            return int(sock.getsockname()[1])

    return pick
