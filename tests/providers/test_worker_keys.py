"""Keys live only in a separate worker process's environment; the client names them."""

from __future__ import annotations

import os

from support import FAST, history_of, kinds
from temporalio.client import Client
from wires import fake_server, history_text, llm_calls, provider_for
from workers import WorkerProcess

from rath import flow
from rath.session import Session
from rath.testing import RecordedRequest, Reply, error_reply, function_handler, text_reply

BAD, GOOD = "sk-ant-revoked-0123456789abcdef", "sk-ant-working-0123456789abcdef"


async def test_remote_worker_falls_back_to_its_second_key(
    remote_env: dict[str, str], client: Client
) -> None:
    def check_key(request: RecordedRequest) -> Reply:
        if request.api_key != GOOD:
            return error_reply(401, f"invalid x-api-key {request.api_key}")
        return text_reply("hello from claude")

    worker_env = remote_env | {"TEAM_ANTHROPIC_KEY": BAD, "PERSONAL_ANTHROPIC_KEY": GOOD}
    assert "TEAM_ANTHROPIC_KEY" not in os.environ  # the client process never sees the keys
    worker = WorkerProcess(worker_env)
    try:
        with fake_server("anthropic", function_handler(check_key)) as server:
            provider = provider_for(
                "anthropic",
                server.base_url,
                api_key=None,
                api_key_env=("TEAM_ANTHROPIC_KEY", "PERSONAL_ANTHROPIC_KEY"),
            )
            out = flow.Agent("x", provider=provider, options=FAST)(Session.from_user_message("hi"))
            assert kinds(out) == ["user", "assistant"]
            assert [r.api_key for r in server.requests] == [BAD, GOOD]
    finally:
        worker.stop()
    assert out.chunk_table.rows[-1].payload["content"] == "hello from claude"
    assert out.run_id is not None
    history = await history_of(client, out.run_id)
    (call,) = llm_calls(history)
    assert call.attempt == 1
    text = history_text(history)
    assert BAD not in text and GOOD not in text
    assert "TEAM_ANTHROPIC_KEY" in text  # only the variable's name travels
