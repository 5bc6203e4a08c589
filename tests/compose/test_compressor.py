"""``flow.Compressor``: one tool-less LLM activity replaces a transcript with one USER row."""

from __future__ import annotations

import pytest
from support import FAST, fake_provider

from rath import flow
from rath.errors import RunFailedError
from rath.flow import Provider
from rath.session import ChunkKind, LineageKind, Session
from rath.settings import Settings
from rath.testing import FakeChatServer, function_handler, text_reply, tool_call_reply


def test_compressor_from_plain_python(rath_env: Settings) -> None:
    with FakeChatServer([text_reply("  The user wants a haiku.  ")]) as server:
        compress = flow.Compressor("Summarise tersely.", fake_provider(server))
        session = Session.from_user_message("please")
        out = compress(session)
        rows = out.chunk_table.rows
        request = server.requests[0]
    assert [(r.kind, r.payload["content"]) for r in rows] == [
        (ChunkKind.USER, "The user wants a haiku.")
    ]
    assert out.lineage_kind is LineageKind.OP_SESSION_COMPRESS
    assert out.parent_session_ids[0] == session.id
    assert dict(out.lineage_extras) == {"compression.lossy": True, "compression.rows_out": 1}
    assert out.usage is not None and out.usage.total_tokens > 0
    roles = [m["role"] for m in request.messages]
    assert roles == ["system", "user", "user"]  # prompt, transcript, the instruction
    assert "Compress them into a shorter narrative" in request.messages[-1]["content"]
    assert not request.body.get("tools")


def test_compressor_refuses_a_reply_with_tool_calls(rath_env: Settings) -> None:
    with FakeChatServer([tool_call_reply(("list_workspace_files", {}))]) as server:
        compressor = flow.Compressor("x", fake_provider(server))
        with pytest.raises(RunFailedError, match="got tool calls instead of a summary"):
            compressor(Session.from_user_message("y"))  # synchronous in plain Python
        assert len(server.requests) == 1  # not retried


class Summarised(flow.Workflow):
    def __init__(self, provider: Provider) -> None:
        super().__init__()
        self.writer = flow.Agent("Write.", provider=provider, options=FAST)
        self.squash = flow.Compressor("Summarise.", provider)
        self.reader = flow.Agent("Read.", provider=provider, options=FAST)

    def forward(self, session: Session) -> Session:
        return self.reader(self.squash(self.writer(session)))


async def test_compressor_inside_a_durable_forward_is_an_activity(rath_env: Settings) -> None:
    def reply(request: object) -> str:
        messages = request.messages  # type: ignore[attr-defined]
        return "SUMMARY" if messages[0]["content"] == "Summarise." else f"seen {len(messages)}"

    with FakeChatServer(function_handler(reply)) as server:
        out = await Summarised(fake_provider(server))(Session.from_user_message("go"))
    contents = [row.payload["content"] for row in out.chunk_table.rows]
    assert contents == ["SUMMARY", "seen 2"]  # the reader saw its prompt + the summary only
