"""Rerun a branch another way (``rath run --from ID@K``, and from Python), then diff the two."""

from __future__ import annotations

import json
import os
from pathlib import Path
from uuid import UUID

from lab.lab_cli import finished_squad, rath
from support import FAST, fake_provider

from rath import flow
from rath.session.persistence import load_session
from rath.settings import Settings
from rath.store import current_catalog
from rath.testing import FakeChatServer, text_reply, tool_call_reply

RERUN_SCRIPT = [
    tool_call_reply(("write_workspace_file", {"path": "rerun.txt", "content": "y"})),
    text_reply("rerun done"),
]


def test_run_from_a_round_then_diff(rath_env: Settings, tmp_path: Path) -> None:
    source = finished_squad(tmp_path / "ws")
    rows = source.chunk_table.rows
    env = os.environ | {"RATH_PROGRESS": "0"}
    with FakeChatServer(RERUN_SCRIPT) as server:
        ran = rath(
            "run",
            "--from",
            f"{source.id.hex[:8]}@1",
            "--agent",
            "Do part A another way.",
            "--model",
            "other-model",
            "--base-url",
            server.base_url,
            env=env,
        )
    assert ran.returncode == 0, ran.stderr + ran.stdout
    branch_line, start_line = ran.stdout.splitlines()[:2]
    assert branch_line.startswith("branch ") and f"of {source.id} (round 1 of " in branch_line
    branch_id = UUID(branch_line.split()[1])
    out_id = UUID(start_line.split()[1])

    catalog = current_catalog()
    branch = catalog.get(branch_id)
    assert branch is not None and branch.parents == (source.id,)
    assert branch.extras["fork.at_round"] == 1
    assert branch.extras["rerun.model"] == "fake-model -> other-model"
    assert branch.extras["rerun.agent"] == "Squad -> agent"
    assert branch.extras["rerun.prompt"] == "Do part A another way."
    out = catalog.get(out_id)
    assert out is not None and out.status == "completed" and out.model == "other-model"
    assert out.parents[0] == branch_id
    assert out.extras["rerun.model"] == "fake-model -> other-model"
    rerun_rows = load_session(out_id).chunk_table.rows
    assert rerun_rows[:2] == rows[:2]
    assert (tmp_path / "ws" / "rerun.txt").read_text() == "y"  # the source's workspace

    text = rath("sessions", "diff", str(source.id), str(out_id))
    assert text.returncode == 0, text.stderr
    assert "common prefix: 2 rows (1 round); they diverge at row 2" in text.stdout
    assert "model fake-model" in text.stdout and "model other-model" in text.stdout
    assert "files written coder_a.txt, coder_b.txt" in text.stdout
    assert "files written rerun.txt" in text.stdout
    assert "no price table: usage in tokens" in text.stdout

    data = json.loads(rath("sessions", "diff", out_id.hex[:8], str(source.id), "--json").stdout)
    assert data["common_rows"] == 2 and data["common_rounds"] == 1
    assert data["a"]["files_written"] == ["rerun.txt"]
    assert data["a"]["tool_calls"][0]["name"] == "write_workspace_file"
    assert sorted(data["b"]["files_written"]) == ["coder_a.txt", "coder_b.txt"]
    assert data["a"]["models"] == ["other-model"] and data["b"]["models"] == ["fake-model"]
    assert data["a"]["after"][0]["index"] == 2
    assert data["b"]["usage"]["total_tokens"] > 0


def test_python_reruns_a_loaded_branch(rath_env: Settings, tmp_path: Path) -> None:
    source = finished_squad(tmp_path / "ws")
    with FakeChatServer([text_reply("again")]) as server:
        agent = flow.Agent("Retry.", provider=fake_provider(server, model="m2"), options=FAST)
        out = agent(load_session(source.id).fork(at=1)).synchronize()
    assert out.chunk_table.rows[:2] == source.chunk_table.rows[:2]
    assert out.chunk_table.rows[-1].payload["content"] == "again"
    record = current_catalog().get(out.id)
    assert record is not None and record.model == "m2"
    branch_id = record.parents[0]
    graph = rath("sessions", "export", str(source.id), "--format", "mermaid").stdout
    assert branch_id.hex[:8] in graph and out.id.hex[:8] in graph
