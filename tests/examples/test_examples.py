"""Every example runs, as a newcomer would run it, on a fresh embedded default."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from example_runs import run_example

pytestmark = pytest.mark.slow  # each example is a process of its own: minutes in all


def test_01_hello_agent_runs_offline_with_the_demo_model(tmp_path: Path) -> None:
    result = run_example("01_hello_agent.py", tmp_path, tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert "started run rath-hello-" in result.stdout
    assert "[rath demo model]" in result.stdout
    assert "write_workspace_file" in result.stdout and "read_workspace_file" in result.stdout
    assert "offline demo model" in result.stderr  # the user is told it is not an LLM
    assert "Web UI: http://127.0.0.1:" in result.stderr
    assert (tmp_path / "work" / "notes.txt").read_text() == "hi"


def test_02_session_lineage_exports_the_graph(tmp_path: Path) -> None:
    result = run_example("02_session_lineage.py", tmp_path, tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert "SessionDiff(common=1, +3, -1)" in result.stdout
    rows = [json.loads(line) for line in (tmp_path / "lineage" / "graph.jsonl").open()]
    kinds = sorted(row["lineage_kind"] for row in rows)
    assert kinds.count("op_fork") == 2 and kinds.count("op_session_loop") == 2
    assert "op_merge" in kinds and "op_detach" in kinds
    assert {row["agent"] for row in rows} >= {"optimist", "skeptic"}
    assert (tmp_path / "lineage" / "graph.mmd").read_text().startswith("flowchart TD")
    assert "digraph" in (tmp_path / "lineage" / "graph.dot").read_text()
    assert "Exception" not in result.stderr and "Traceback" not in result.stderr


def test_03_squad_runs_durably_with_a_child_per_agent(tmp_path: Path) -> None:
    result = run_example("03_squad.py", tmp_path, tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert "started run rath-Squad-" in result.stdout
    assert "lineage=op_workflow" in result.stdout
    for agent in ("planner", "coder_a", "coder_b", "reviewer"):
        assert f"agent: {agent}" in result.stdout  # in the run's session graph
    assert 'My instructions: "Review and merge the work."' in result.stdout
    assert "OpenRath's default merge concatenates both branches" in result.stdout
    assert "rath sessions show " in result.stdout and "rath run 03_squad:Squad" in result.stdout
    assert "Traceback" not in result.stderr


def test_04_sandbox_backends_runs_the_agent_on_each_usable_backend(tmp_path: Path) -> None:
    result = run_example("04_sandbox_backends.py", tmp_path, tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert "local   isolation=process    available" in result.stdout
    assert "docker  isolation=container" in result.stdout
    assert (tmp_path / "work" / "local" / "hello.txt").read_text() == "hi from local"
    assert "its tools ran on the worker queue rath-file-" in result.stdout  # the store's tag, @host
    if "bwrap   isolation=namespace  available" in result.stdout:
        assert (tmp_path / "work" / "bwrap" / "hello.txt").read_text() == "hi from bwrap"


def test_05_custom_tool_is_called_and_its_result_reaches_the_model(tmp_path: Path) -> None:
    result = run_example("05_custom_tool.py", tmp_path, tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert "-> calculator(" in result.stdout
    assert '"result": 5760' in result.stdout
    assert "calculator returned" in result.stdout


def test_06_mcp_tool_runs_over_stdio(tmp_path: Path) -> None:
    result = run_example("06_mcp_tool.py", tmp_path, tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert 'tool_result echo: {"text": "hello from mcp"}' in result.stdout


def test_11_approvals_pauses_until_approved(tmp_path: Path) -> None:
    result = run_example("11_approvals.py", tmp_path, tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert "waiting for approval: careful wants write_workspace_file" in result.stdout
    assert "approved call_" in result.stdout
    assert (tmp_path / "work" / "notes.txt").read_text() == "hi"


def test_12_budgets_stops_a_tree_and_keeps_the_transcript(tmp_path: Path) -> None:
    result = run_example("12_budgets.py", tmp_path, tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert 'My instructions: "Sum up the reviews."' in result.stdout  # the big budget
    assert "stopped: total_tokens:" in result.stdout
    assert "the transcript so far has" in result.stdout


def test_10_provider_variation_runs_both_kinds(tmp_path: Path) -> None:
    result = run_example("10_provider_variation.py", tmp_path, tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert "=== provider_kind=openai ===" in result.stdout
    assert "=== provider_kind=anthropic ===" in result.stdout
    assert (tmp_path / "work" / "openai" / "hello.txt").read_text() == "hi"
    assert (tmp_path / "work" / "anthropic" / "hello.txt").read_text() == "hi"


def test_13_trading_desk_runs_the_nested_desk_as_one_tree(tmp_path: Path) -> None:
    result = run_example("13_trading_desk.py", tmp_path, tmp_path / "home")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "started run rath-TradingDesk-" in out
    assert "(analysts): AnalystTeam(" in out and "(risk): RiskReview(" in out
    runs = out.split(" agent runs: ", 1)[1].splitlines()[0].split(", ")
    # Concurrent agents may be recorded in either order.
    assert sorted(runs) == sorted(
        [
            "market",
            "news",
            "fundamentals",
            "bull",
            "bear",
            "bull",
            "bear",
            "trader",
            "aggressive",
            "conservative",
            "neutral",
            "manager",
        ]
    )
    assert 'My instructions: "You are the risk manager.' in out
    assert "TradingDesk.forward (op_workflow)" in out
    assert "Traceback" not in result.stderr


def test_14_branch_and_rerun_diffs_and_draws_the_lineage(tmp_path: Path) -> None:
    result = run_example("14_branch_and_rerun.py", tmp_path, tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert "branched at the planner's round" in result.stdout
    assert "{'fork.at_round': 1, 'fork.rounds': 5}" in result.stdout
    assert "common prefix: 2 rows (1 round); they diverge at row 2" in result.stdout
    assert "model gpt-4o-mini" in result.stdout and "model gpt-4.1-mini" in result.stdout
    page = (tmp_path / "lineage.html").read_text()
    # the Squad's 13; the branch, 3 prompts, 3 agent runs, 2 forks, a merge, the output
    assert page.count('class="node') == 13 + 11
    assert "Traceback" not in result.stderr
