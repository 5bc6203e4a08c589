"""Every example runs, as a newcomer would run it, on a fresh embedded default."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from rath._runtime.devserver import stop_server

ROOT = Path(__file__).resolve().parents[2]


def run_example(name: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TEMPORAL_ADDRESS", "OPENAI_API_KEY")}
    env.update(RATH_HOME=str(home), RATH_TASK_QUEUE="rath")
    try:
        return subprocess.run(
            [sys.executable, str(ROOT / "examples" / name)],
            cwd=cwd,
            env=env,
            capture_output=True,
            check=False,
            text=True,
            timeout=120,
        )
    finally:
        stop_server(home)


def test_01_hello_agent_runs_offline_with_the_demo_model(tmp_path: Path) -> None:
    result = run_example("01_hello_agent.py", tmp_path, tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert "started run rath-hello-" in result.stdout
    assert "[rath demo model]" in result.stdout
    assert "write_workspace_file" in result.stdout and "read_workspace_file" in result.stdout
    assert "offline demo model" in result.stderr  # the user is told it is not an LLM
    assert "Web UI: http://127.0.0.1:" in result.stderr
    assert (tmp_path / "work" / "notes.txt").read_text() == "hi"
