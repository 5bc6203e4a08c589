"""Ids that work everywhere, ``show``'s parents and children, and one graph for CLI and API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from uuid import UUID

import pytest
from lab.lab_cli import finished_squad, rath

from rath import run_graph
from rath.session.graph import SessionGraph
from rath.settings import Settings
from rath.store import SessionRecord, current_catalog


def test_squad_export_equals_the_api_graph_and_ids_resolve(
    rath_env: Settings, tmp_path: Path
) -> None:
    out = finished_squad(tmp_path / "ws")
    api = run_graph(out)
    assert len(api) == 13  # the task, 4 prompts, 4 agent runs, 2 forks, the merge, the output

    for form, text in (("mermaid", api.to_mermaid()), ("dot", api.to_dot())):
        cli = rath("sessions", "export", str(out.id), "--format", form)
        assert cli.returncode == 0, cli.stderr
        assert cli.stdout == text + "\n"
    assert "not in graph" not in api.to_mermaid()

    short = out.id.hex[:8]  # what repr prints
    assert short in repr(out)
    for key in (str(out.id), short, out.run_id, str(out.id).upper()):
        assert key is not None
        shown = rath("sessions", "show", key)
        assert shown.returncode == 0, (key, shown.stderr)
        assert shown.stdout.startswith(f"session {out.id}  (op_workflow, completed, agent Squad)")

    # The planner: its parents (the task, its prompt) and its children (the two forks made
    # inside forward, which only the run's graph knows).
    graph = api.by_id
    planner_id = next(n.id for n in api.nodes if n.agent == "planner")
    planner = current_catalog().get(planner_id)
    assert planner is not None
    forks = [n.id for n in api.nodes if planner.id in n.parent_session_ids]
    assert len(forks) == 2 and all(graph[f].lineage_kind.value == "op_fork" for f in forks)
    shown = rath("sessions", "show", planner.workflow_id or "").stdout
    lineage = shown.split("lineage:\n", 1)[1]
    assert lineage.count("  parent ") == 2
    for fork in forks:
        assert f"  child  {fork} (op_fork, -, inside a run)" in lineage
    as_json = json.loads(rath("sessions", "show", str(planner.id), "--json").stdout)
    assert sorted(as_json["children"]) == sorted(map(str, forks))


def test_prefixes_ambiguous_unknown_and_malformed(
    rath_env: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATH_STORE_DIR", str(tmp_path / "store"))  # a catalog of its own
    catalog = current_catalog()
    first = UUID("abcd1234-0000-4000-8000-000000000001")
    second = UUID("abcd1299-0000-4000-8000-000000000002")
    for sid in (first, second):
        catalog.put(SessionRecord(id=sid, kind="user", status="completed", agent="probe"))

    shown = rath("sessions", "show", "abcd12")
    assert shown.returncode == 1
    lines = shown.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in shown.stderr
    assert "'abcd12' is ambiguous: 2 sessions start with it" in lines[0]
    assert str(first) in lines[0] and str(second) in lines[0]

    unique = rath("sessions", "show", "abcd1299")
    assert unique.returncode == 0 and unique.stdout.startswith(f"session {second}")
    rooted = rath("sessions", "ls", "--root", "abcd1234", "--json")
    assert rooted.returncode == 0, rooted.stderr

    for key, says in (
        ("zz-not-an-id", "is not a session id, an id prefix"),
        ("ab", "at least 4 hex characters"),
        ("abcd0000", "no session abcd0000 in the catalog"),
        ("rath-Squad-000000000000", "is not a session id"),
    ):
        bad = rath("sessions", "show", key)
        assert bad.returncode == 1 and says in bad.stderr, (key, bad.stderr)
        assert len(bad.stderr.strip().splitlines()) == 1


def test_a_closed_pipe_ends_quietly(
    rath_env: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATH_STORE_DIR", str(tmp_path / "store"))
    catalog = current_catalog()
    for number in range(900):  # about 90 KB of `ls`: more than a pipe holds
        sid = UUID(int=(0xFEED << 112) + number)
        catalog.put(SessionRecord(id=sid, kind="user", status="completed", agent="bulk"))
    command = str(Path(sys.executable).with_name("rath"))
    with subprocess.Popen(
        [command, "sessions", "ls", "--agent", "bulk"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=os.environ.copy(),
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.readline()
        process.stdout.close()  # as `| head -1` does
        errors = process.stderr.read().decode()
        code = process.wait(timeout=120)
    assert first.startswith(b"SESSION")
    assert "Traceback" not in errors and "BrokenPipe" not in errors, errors
    assert code == 141


def test_importing_a_lineage_file_says_what_was_expected(
    rath_env: Settings, tmp_path: Path
) -> None:
    lineage = tmp_path / "lineage.jsonl"
    graph = SessionGraph(nodes=())
    lineage.write_text(
        '{"id": "8b48dc1f-f32e-4834-9d5c-8b8cd1cf4784", "parent_session_ids": [], '
        '"lineage_operator": "x", "lineage_kind": "op_fork"}\n' + graph.to_jsonl()
    )
    imported = rath("sessions", "import", str(lineage))
    assert imported.returncode == 1
    line = imported.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert f"{lineage}:1: a session graph row (lineage JSONL), not a session file" in line
    assert 'expected the header record ({"record_type": "header"' in line
