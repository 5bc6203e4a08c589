"""OpenRath's ``Provider(budget_total_tokens=, on_budget_exceeded=)`` on ``run_session_loop``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support import FAST, fake_provider

from rath.session import Session, run_session_loop
from rath.settings import Settings
from rath.testing import FakeChatServer, function_handler, tool_call_reply

LOOK = ("list_workspace_files", {"path": "."})


def test_the_callback_sees_the_crossing_usage_and_the_callers_session(
    rath_env: Settings, tmp_path: Path
) -> None:
    seen: list[tuple[Session, Any]] = []
    with FakeChatServer(function_handler(lambda request: tool_call_reply(LOOK))) as server:
        provider = fake_provider(
            server, budget_total_tokens=20, on_budget_exceeded=lambda s, u: seen.append((s, u))
        )
        out = run_session_loop(
            Session.from_user_message("go").to("local", spec=tmp_path),
            Session.from_agent_prompt("Look."),
            agent_provider=provider,
            options=FAST,
        )
        rows = out.chunk_table.rows  # the callback returned: the partial transcript stands
        calls = len(server.requests)
    assert calls == 2  # 15, then 30: the round that crossed 20 is the last one
    assert len(seen) == 1
    session, usage = seen[0]
    assert session is out
    assert usage.total_tokens == 30
    assert len(rows) == 5
