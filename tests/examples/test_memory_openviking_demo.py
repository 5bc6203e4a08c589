"""The OpenViking example runs against a real server and its agent is given the memory."""

from __future__ import annotations

from pathlib import Path

import pytest
from example_runs import run_example
from openviking_server import OpenViking


def test_openviking_demo(
    openviking: OpenViking, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPEN_VIKING_URL", openviking.url)
    monkeypatch.setenv("OPEN_VIKING_API_KEY", openviking.api_key)
    monkeypatch.setenv("OPEN_VIKING_ACCOUNT", openviking.account)
    monkeypatch.setenv("OPEN_VIKING_USER", openviking.user)
    result = run_example("memory_openviking_demo.py", tmp_path, tmp_path / "home")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "write: memory://user/memories/habits/night" in out
    assert "list habits: ['memory://user/memories/habits/night']" in out
    find = out.split("find 'reading code at night':\n", 1)[1].splitlines()
    assert find[0].split()[1] == "memory://user/memories/habits/night"
    assert "was given 1 memory:" in out
    assert "[memory] memory://user/memories/habits/night" in out
    assert openviking.api_key not in out + result.stderr
