"""Provider faults through real agent runs: real Temporal, a real worker, fake servers speaking
the real OpenAI and Anthropic wire protocols on loopback.

Each fault has its outcome (retried to success, or a clear terminal error) and the transcript
has exactly the rows it should: one assistant row per round, nothing lost, nothing repeated.
How long Temporal waited before the retry is read from history, not measured with sleeps.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from support import FAST, history_of, kinds
from temporalio.client import Client
from wires import (
    WIRES,
    LLMCall,
    fake_server,
    history_text,
    llm_calls,
    provider_for,
    wait_for_failed_attempt,
)

from rath import flow
from rath.contracts.runs import LoopCarry
from rath.errors import RunFailedError
from rath.session import Session
from rath.settings import Settings
from rath.store import store_at
from rath.testing import (
    RecordedRequest,
    Reply,
    error_reply,
    function_handler,
    gated,
    hung_up,
    raw_reply,
    text_reply,
    truncated,
)

MALFORMED = {
    "openai": b'{"id": "chatcmpl-1", "object": "chat.completion", "choices": [',
    "anthropic": b'{"id": "msg_1", "type": "message", "content": [',
}


def _answer(out: Session) -> str:
    return str(out.chunk_table.rows[-1].payload["content"])


async def _run_with_one_fault(
    client: Client, wire: str, fault: Reply, **provider_fields: Any
) -> tuple[Session, int, list[LLMCall]]:
    """Run one agent whose first model call meets ``fault`` and whose second succeeds."""
    with fake_server(wire, [fault, text_reply("recovered")]) as server:
        provider = provider_for(wire, server.base_url, **provider_fields)
        out = flow.Agent("x", provider=provider, options=FAST)(Session.from_user_message("go"))
        assert kinds(out) == ["user", "assistant"]
        requests = len(server.requests)
    assert out.run_id is not None
    return out, requests, llm_calls(await history_of(client, out.run_id))


@pytest.mark.parametrize(
    ("wire", "header"),
    [("openai", ("retry-after-ms", "2000")), ("anthropic", ("retry-after", "2"))],
)
async def test_429_waits_for_retry_after(
    wire: str, header: tuple[str, str], rath_env: Settings, client: Client
) -> None:
    fault = error_reply(429, "slow down", headers=dict([header]))
    out, requests, calls = await _run_with_one_fault(client, wire, fault)
    assert _answer(out) == "recovered"
    assert requests == 2
    (call,) = calls
    assert (call.attempt, call.last_failure_type) == (2, "LLMHTTP429")
    assert call.last_failure_delay == 2.0
    # The policy's first interval is 0.1 s (the dev server waits about 1 s at least): the 2 s
    # between scheduling and the second attempt are the server's Retry-After.
    assert call.wait_before_last_attempt >= 1.95


@pytest.mark.parametrize("status", [500, 503])
@pytest.mark.parametrize("wire", WIRES)
async def test_5xx_is_retried_with_backoff(
    wire: str, status: int, rath_env: Settings, client: Client
) -> None:
    out, requests, calls = await _run_with_one_fault(client, wire, error_reply(status, "boom"))
    assert _answer(out) == "recovered"
    assert requests == 2
    (call,) = calls
    assert (call.attempt, call.last_failure_type) == (2, f"LLMHTTP{status}")


@pytest.mark.parametrize("wire", WIRES)
async def test_malformed_json_body_is_retried(
    wire: str, rath_env: Settings, client: Client
) -> None:
    out, requests, calls = await _run_with_one_fault(client, wire, raw_reply(200, MALFORMED[wire]))
    assert (_answer(out), requests) == ("recovered", 2)
    assert (calls[0].attempt, calls[0].last_failure_type) == (2, "LLMBadResponse")


@pytest.mark.parametrize("wire", WIRES)
async def test_truncated_body_is_retried(wire: str, rath_env: Settings, client: Client) -> None:
    fault = truncated(text_reply("this answer is cut off halfway " * 8))
    out, requests, calls = await _run_with_one_fault(client, wire, fault)
    assert (_answer(out), requests) == ("recovered", 2)
    assert (calls[0].attempt, calls[0].last_failure_type) == (2, "LLMBadResponse")


@pytest.mark.parametrize("wire", WIRES)
async def test_read_timeout_is_retried(wire: str, rath_env: Settings, client: Client) -> None:
    held = threading.Event()
    try:
        fault = gated(text_reply("too late"), held, timeout=30)
        out, requests, calls = await _run_with_one_fault(client, wire, fault, request_timeout=0.5)
    finally:
        held.set()  # let the server thread holding the first request finish
    assert (_answer(out), requests) == ("recovered", 2)
    assert (calls[0].attempt, calls[0].last_failure_type) == (2, "LLMTimeout")


@pytest.mark.parametrize("wire", WIRES)
async def test_connection_closed_before_answering_is_a_disconnect(
    wire: str, rath_env: Settings, client: Client
) -> None:
    # What a model server that stops with its worker does to a call in flight: aiohttp's
    # ServerDisconnectedError, which openai's transport re-raises as a connect *timeout*.
    out, requests, calls = await _run_with_one_fault(client, wire, hung_up())
    assert (_answer(out), requests) == ("recovered", 2)
    (call,) = calls
    assert (call.attempt, call.last_failure_type) == (2, "LLMConnectionError")
    assert "closed the connection before answering" in call.last_failure_message
    assert "did not answer" not in call.last_failure_message


@pytest.mark.parametrize("wire", WIRES)
async def test_connection_refused_until_the_server_starts(
    wire: str, rath_env: Settings, client: Client
) -> None:
    with fake_server(wire, []) as probe:
        port, base_url = probe.port, probe.base_url  # a port nothing listens on once closed
    provider = provider_for(wire, base_url, retry_max_attempts=30)
    out = flow.Agent("x", provider=provider, options=FAST)(Session.from_user_message("go"))
    assert out.run_id is not None
    await wait_for_failed_attempt(client, out.run_id, "LLMConnectionError")
    with fake_server(wire, [text_reply("up now")], port=port) as server:
        assert kinds(out) == ["user", "assistant"]
        assert len(server.requests) == 1
    assert _answer(out) == "up now"
    (call,) = llm_calls(await history_of(client, out.run_id))
    assert call.attempt >= 2 and call.last_failure_type == "LLMConnectionError"


@pytest.mark.parametrize("wire", WIRES)
async def test_400_fails_at_once_naming_provider_and_status(
    wire: str, rath_env: Settings, client: Client
) -> None:
    with fake_server(wire, [error_reply(400, "messages: malformed")]) as server:
        base_url = server.base_url
        provider = provider_for(wire, base_url)
        out = flow.Agent("x", provider=provider, options=FAST)(Session.from_user_message("go"))
        with pytest.raises(RunFailedError) as info:
            out.synchronize()
        assert len(server.requests) == 1  # not retried
    assert out.run_id is not None
    message = str(info.value)
    assert f"{wire} at {base_url} answered HTTP 400 for model" in message
    assert "messages: malformed" in message
    (call,) = llm_calls(await history_of(client, out.run_id))
    assert (call.attempt, call.failed_type, call.non_retryable) == (1, "LLMHTTP400", True)
    # Nothing was appended: the transcript so far is the user's message alone.
    carry = await client.get_workflow_handle(out.run_id).query("progress", result_type=LoopCarry)
    rows = store_at(rath_env.store_dir).load_rows(carry.transcript)
    assert [row.kind.value for row in rows] == ["user"]


@pytest.mark.parametrize("wire", WIRES)
async def test_401_moves_to_the_fallback_key_in_the_same_attempt(
    wire: str, rath_env: Settings, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad, good = "sk-revoked-0123456789abcdef", "sk-working-0123456789abcdef"
    monkeypatch.setenv("RATH_TEST_KEY_A", bad)
    monkeypatch.setenv("RATH_TEST_KEY_B", good)

    def check_key(request: RecordedRequest) -> Reply:
        if request.api_key != good:
            return error_reply(401, f"Incorrect API key provided: {request.api_key}")
        return text_reply("authorised")

    with fake_server(wire, function_handler(check_key)) as server:
        provider = provider_for(
            wire, server.base_url, api_key=None, api_key_env=("RATH_TEST_KEY_A", "RATH_TEST_KEY_B")
        )
        agent = flow.Agent("x", provider=provider, options=FAST)
        out = agent(Session.from_user_message("go"))
        assert kinds(out) == ["user", "assistant"]
        assert [r.api_key for r in server.requests] == [bad, good]
        # The next run of this worker starts with the key that worked.
        second = agent(Session.from_user_message("again"))
        assert kinds(second) == ["user", "assistant"]
        assert [r.api_key for r in server.requests] == [bad, good, good]
    assert _answer(out) == "authorised"
    assert out.run_id is not None
    history = await history_of(client, out.run_id)
    (call,) = llm_calls(history)
    assert call.attempt == 1  # the fallback happened inside the first attempt
    text = history_text(history)
    assert bad not in text and good not in text


@pytest.mark.parametrize("wire", WIRES)
async def test_all_keys_rejected_fails_without_retry_and_without_the_keys(
    wire: str, rath_env: Settings, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    keys = ["sk-first-0123456789abcdef", "sk-second-0123456789abcdef"]
    monkeypatch.setenv("RATH_TEST_KEY_A", keys[0])
    monkeypatch.setenv("RATH_TEST_KEY_B", keys[1])
    reject = function_handler(
        lambda request: error_reply(401, f"Incorrect API key provided: {request.api_key}")
    )
    with fake_server(wire, reject) as server:
        provider = provider_for(
            wire, server.base_url, api_key=None, api_key_env=["RATH_TEST_KEY_A", "RATH_TEST_KEY_B"]
        )
        out = flow.Agent("x", provider=provider, options=FAST)(Session.from_user_message("go"))
        with pytest.raises(RunFailedError) as info:
            out.synchronize()
        assert len(server.requests) == 2
    assert "HTTP 401" in str(info.value) and "all 2 API keys were rejected" in str(info.value)
    assert out.run_id is not None
    history = await history_of(client, out.run_id)
    (call,) = llm_calls(history)
    assert (call.attempt, call.failed_type, call.non_retryable) == (1, "LLMHTTP401", True)
    text = history_text(history) + str(info.value)
    assert all(key not in text for key in keys)
