"""rath.utils: OpenRath's output decoding, project root and test settings."""

from __future__ import annotations

from pathlib import Path

import pytest

import rath.utils as utils


def test_decodes_utf8_and_falls_back_without_raising() -> None:
    assert utils.decode_subprocess_output("héllo ✓".encode()) == "héllo ✓"
    text = utils.decode_subprocess_output(b"caf\xe9 \xff")
    assert text.startswith("caf") and len(text) >= 5


def test_project_root_is_the_nearest_folder_with_a_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    assert utils.project_root_with_pyproject(inner) == tmp_path.resolve()
    with pytest.raises(FileNotFoundError, match=r"pyproject\.toml"):
        utils.project_root_with_pyproject(Path("/"))


def test_test_settings_are_read_lazily(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TEST_MODEL", raising=False)
    assert utils.TEST_MODEL is None
    monkeypatch.setenv("TEST_MODEL", "gpt-test")
    assert utils.TEST_MODEL == "gpt-test"
    with pytest.raises(AttributeError, match="NOPE"):
        _ = utils.NOPE
