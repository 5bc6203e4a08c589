"""Example 09 runs offline; a run is given the matching memory; a second process recalls it."""

from __future__ import annotations

import re
from pathlib import Path

from example_runs import run_example

URI = r"memory://user/memories/(?:preferences|profile)/[0-9a-f]{16}"


def run_09(home: Path, cwd: Path) -> str:
    result = run_example("09_memory.py", cwd, home)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout


def test_09_memory_persists_across_runs(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = run_09(home, tmp_path)
    assert "0 memories about the user before this run" in first
    remembered = re.findall(rf"remember: ({URI}) \(new\)", first)
    assert len(remembered) == 2
    hits = re.findall(rf"^  (\S+)  ({URI})  (.*)$", first, re.MULTILINE)
    assert [(uri, text) for _, uri, text in hits] == [
        (remembered[0], "The user prefers dark mode and reads code late at night.")
    ]  # the unrelated memory is not a zero-score hit
    assert float(hits[0][0]) > 0
    assert (home / "memory" / "memory.db").is_file()
    # The run got the matching memory injected, and only that one.
    assert "was given 1 memory:" in first
    assert f"[memory] {remembered[0]}\n  The user prefers dark mode" in first

    second = run_09(home, tmp_path)  # another process, the same data dir
    assert "2 memories about the user before this run" in second
    again = re.findall(rf"remember: ({URI}) \(remembered by an earlier run\)", second)
    assert again == remembered
    assert second.count(remembered[0]) == 3  # remembered, recalled and injected
