"""The file tools hold when a command swaps a workspace directory for a symlink mid-call.

A command of the same round runs while file calls do; it can replace ``d`` by a link to a host
directory between the path check and the open. Each test makes that interleaving certain: the
swap happens right after the path was checked.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from rath.backend.sandboxes import ToolFailure, _files


@pytest.fixture
def swapped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Path]]:
    """``(root, outside)``: ``root/d`` becomes a link to ``outside`` just after each check."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "d").mkdir(parents=True)
    (root / "d" / "f").write_text("inside")
    outside.mkdir()
    (outside / "f").write_text("host secret")
    checked = _files.resolve

    def check_then_swap(workspace: str, path: str) -> tuple[str, str]:
        result = checked(workspace, path)
        if not (root / "d").is_symlink():
            os.rename(root / "d", root / "d-was")
            os.symlink(outside, root / "d")
        return result

    monkeypatch.setattr(_files, "resolve", check_then_swap)
    yield root.resolve(), outside


def test_a_read_does_not_follow_the_swap(swapped: tuple[Path, Path]) -> None:
    root, _ = swapped
    with pytest.raises(ToolFailure) as caught:
        _files.read_file(str(root), "d/f", None, 1000)
    assert caught.value.kind == "path_outside_workspace"


def test_a_write_does_not_land_outside(swapped: tuple[Path, Path]) -> None:
    root, outside = swapped
    with pytest.raises(ToolFailure) as caught:
        _files.write_file(str(root), "d/new.txt", "escaped")
    assert caught.value.kind == "path_outside_workspace"
    assert sorted(p.name for p in outside.iterdir()) == ["f"]


def test_a_listing_does_not_show_the_host_directory(swapped: tuple[Path, Path]) -> None:
    root, _ = swapped
    with pytest.raises(ToolFailure) as caught:
        _files.list_files(str(root), "d")
    assert caught.value.kind == "path_outside_workspace"


def test_an_existence_check_does_not_answer_for_the_host(swapped: tuple[Path, Path]) -> None:
    root, _ = swapped
    with pytest.raises(ToolFailure) as caught:
        _files.path_exists(str(root), "d/f")
    assert caught.value.kind == "path_outside_workspace"
