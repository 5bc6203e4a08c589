"""Every test here gets its own data dir, so plane stores land in a fresh ``memory/local``."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def own_home(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A data dir of the test's own, except for tests on the shared embedded server."""
    if "rath_env" in request.fixturenames:
        return Path(str(request.getfixturevalue("rath_env").home))
    home = tmp_path / "home"
    monkeypatch.setenv("RATH_HOME", str(home))
    return home
