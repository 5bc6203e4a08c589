"""rath.utils: OpenRath's output decoding, project root and test settings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

import rath.session.graph as graph
import rath.utils as utils
from rath.contracts.llm import DescribeImageArgs
from rath.contracts.mcp import McpServerSpec


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


def test_lazy_names_import_each_name_once_from_its_module() -> None:
    # A fresh process: the OpenAI SDK loads only when OpenRath's embedding client is asked for.
    probe = (
        "import sys, rath.llm.embedding as e, rath.llm.vlm as v, rath.session.graph as g\n"
        "before = 'openai' in sys.modules\n"
        "client = e.RathOpenAIEmbeddingClient\n"
        "print(before, 'openai' in sys.modules, e.__dict__['RathOpenAIEmbeddingClient'] is client,"
        " v.VLMProvider.__module__, g.SessionLineage.__module__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    ).stdout.split()
    assert out == [
        "False",
        "True",
        "True",
        "rath.llm.vlm",
        "rath.session.graph.legacy",
    ]


def test_a_lazy_module_names_what_it_lacks() -> None:
    with pytest.raises(AttributeError, match=r"'rath.session.graph' has no attribute 'Nope'"):
        graph.Nope  # noqa: B018


def test_a_frozen_model_that_adds_its_own_config_stays_frozen() -> None:
    spec = McpServerSpec(transport="stdio", command="server")
    with pytest.raises(ValidationError, match="frozen"):
        spec.command = "other"  # type: ignore[misc]
    with pytest.raises(ValidationError, match="Extra inputs"):
        McpServerSpec(transport="stdio", command="server", colour="red")  # type: ignore[call-arg]
    assert DescribeImageArgs.model_config["frozen"] is True
    assert DescribeImageArgs.model_config["ser_json_bytes"] == "base64"
