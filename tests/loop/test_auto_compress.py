"""``Agent(compress_at_tokens=N)``: a round whose context reached N tokens is compressed."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import FAST, fake_provider

from rath import flow
from rath.activities.llm import DEFAULT_COMPRESS_INSTRUCTION
from rath.errors import ConfigError
from rath.session import ChunkKind, Session
from rath.settings import Settings
from rath.testing import FakeChatServer, text_reply, tool_call_reply

LOOK = ("list_workspace_files", {"path": "."})


def test_a_round_past_the_threshold_is_compressed_and_the_loop_goes_on(
    rath_env: Settings, tmp_path: Path
) -> None:
    script = [
        tool_call_reply(LOOK, usage=(900, 100)),  # 1000 tokens: compress before round 2
        text_reply("summary: the user wants the files listed; they were listed"),
        tool_call_reply(LOOK, usage=(300, 20)),  # under the threshold: no compression
        text_reply("done"),
    ]
    with FakeChatServer(script) as server:
        agent = flow.Agent(
            "Be brief.", provider=fake_provider(server), options=FAST, compress_at_tokens=1000
        )
        out = agent(Session.from_user_message("list the files").to("local", spec=tmp_path))
        rows = out.chunk_table.rows
        requests = server.requests
    assert [row.kind for row in rows] == [
        ChunkKind.USER,
        ChunkKind.ASSISTANT,
        ChunkKind.TOOL_RESULT,
        ChunkKind.ASSISTANT,
    ]
    assert rows[0].payload["content"].startswith("summary: the user wants")
    assert rows[-1].payload["content"] == "done"
    assert dict(out.lineage_extras) == {"compression.auto": 1}
    # The compression request saw the agent prompt, the round and the instruction, no tools.
    squash = requests[1]
    assert squash.messages[0] == {"role": "system", "content": "Be brief."}
    assert squash.messages[-1]["content"] == DEFAULT_COMPRESS_INSTRUCTION
    assert [m["role"] for m in squash.messages[1:4]] == ["user", "assistant", "tool"]
    assert not squash.body.get("tools")
    # The next round continued from the summary alone.
    assert [m["role"] for m in requests[2].messages] == ["system", "user"]
    assert out.usage is not None and out.usage.total_tokens == 1000 + 15 + 320 + 15


def test_without_a_threshold_nothing_is_compressed(rath_env: Settings, tmp_path: Path) -> None:
    script = [tool_call_reply(LOOK, usage=(90000, 100)), text_reply("done")]
    with FakeChatServer(script) as server:
        agent = flow.Agent("Be brief.", provider=fake_provider(server), options=FAST)
        out = agent(Session.from_user_message("go").to("local", spec=tmp_path))
        assert len(out.chunk_table.rows) == 4
        assert len(server.requests) == 2
    assert dict(out.lineage_extras) == {}


def test_a_threshold_must_be_positive() -> None:
    with pytest.raises(ConfigError, match="compress_at_tokens must be a positive"):
        flow.Agent("x", model="m", compress_at_tokens=0)(Session.from_user_message("y"))
