"""Example 07 runs offline and prints the model's deltas as they arrive, before the final line."""

from __future__ import annotations

from pathlib import Path

from example_runs import run_example


def test_07_streaming_prints_deltas_before_the_final_usage(tmp_path: Path) -> None:
    result = run_example("07_streaming.py", tmp_path, tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stdout.strip().splitlines()
    final = lines[-1]
    assert final.startswith("--- usage total=") and "prompt=" in final
    streamed = "\n".join(lines[:-1])
    # Three rounds streamed before the final line: two tool calls, then the answer.
    assert streamed.index("[round 1]") < streamed.index("[round 2]") < streamed.index("[round 3]")
    assert '-> write_workspace_file({"path": "notes.txt", "content": "hi"})' in streamed
    assert '-> read_workspace_file({"path": "notes.txt"})' in streamed
    assert '[rath demo model] Wrote notes.txt (2 bytes). Read it back: "hi".' in streamed
    assert streamed.count("[finish_reason=tool_calls]") == 2
    assert streamed.rstrip().endswith("[finish_reason=stop]")
    assert (tmp_path / "work" / "notes.txt").read_text() == "hi"
