"""rath.config: OpenRath's config file (where it is, what it holds, how it is saved) and the
Provider built from it."""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

import pytest

from rath.config import (
    ConfigError,
    ConfigStore,
    LLMProviderConfig,
    MCPServerConfig,
    resolve_config_dir,
    resolve_config_path,
)
from rath.errors import ConfigEntryNotFoundError
from rath.llm import Provider

EXAMPLE = {
    "version": 1,
    "llm": {
        "default_provider": "main",
        "providers": {
            "main": {
                "provider_kind": "openai",
                "model": "gpt-test",
                "api_key": "k-main",
                "base_url": "http://127.0.0.1:9/v1",
                "temperature": 0.2,
            },
            "claude": {"provider_kind": "anthropic", "model": "claude-test", "api_key": "k-c"},
        },
        "team_note": "kept",
    },
    "mcp": {
        "default_enabled": ["fs", "gone"],
        "servers": {"fs": {"command": ["python", "-m", "srv"]}},
    },
    "memory": {"providers": {"notes": {"backend_kind": "local", "path": "~/notes"}}},
}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENRATH_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    os.chmod(path, 0o600)
    return path


def test_the_directory_is_openrath_home_then_the_project_then_the_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENRATH_HOME", str(tmp_path / "explicit"))
    assert resolve_config_dir() == (tmp_path / "explicit").resolve()
    monkeypatch.delenv("OPENRATH_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert resolve_config_dir() == tmp_path / "user" / ".openrath"
    (tmp_path / ".openrath").mkdir()
    assert resolve_config_path() == (tmp_path / ".openrath" / "config.json").resolve()
    (tmp_path / "afile").write_text("x")
    monkeypatch.setenv("OPENRATH_HOME", str(tmp_path / "afile"))
    with pytest.raises(FileNotFoundError, match="not a directory"):
        resolve_config_dir()


def test_the_file_loads_and_answers_lookups(home: Path) -> None:
    _write(home / "config.json", EXAMPLE)
    store = ConfigStore.load()
    main = store.get_llm_provider("main")
    assert isinstance(main, LLMProviderConfig) and main.model == "gpt-test"
    assert store.find_provider_by_kind("openai") is main
    claude = store.find_provider_by_kind("anthropic")
    assert claude is not None and claude.model == "claude-test"
    with pytest.raises(KeyError, match=r"no LLM provider 'nope'.*available: claude, main"):
        store.get_llm_provider("nope")
    with pytest.raises(KeyError, match="no MCP server 'gone'"):  # default_enabled names it
        store.enabled_mcp_servers()
    server = store.get_mcp_server("fs")
    assert isinstance(server, MCPServerConfig) and server.command == ["python", "-m", "srv"]
    notes = store.get_memory_provider("notes")
    assert notes is not None and notes.path == "~/notes"
    assert store.config.llm.model_extra == {"team_note": "kept"}
    assert "k-main" not in repr(main)


def test_a_missing_file_gives_the_defaults(home: Path) -> None:
    store = ConfigStore.load()
    assert store.config.llm.providers == {} and store.config.version == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"llm": ', r"not valid JSON \(line 1, col 9\)"),
        ("[1, 2]", "JSON object at its top level"),
        (
            '{"llm": {"providers": {"x": {"provider_kind": "cohere"}}}}',
            r"invalid at llm\.providers\.x",
        ),
    ],
)
def test_a_broken_file_is_one_config_error(home: Path, text: str, message: str) -> None:
    _write(home / "config.json", text)
    with pytest.raises(ConfigError, match=message) as info:
        ConfigStore(home / "config.json")
    assert isinstance(info.value, RuntimeError)


def test_save_is_private_atomic_and_ignored_by_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENRATH_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".openrath").mkdir()
    (tmp_path / ".gitignore").write_text("build/\n")
    store = ConfigStore.load()
    store.config.llm.providers["main"] = LLMProviderConfig(model="m", api_key="k")
    store.config.version = 7
    store.save()
    path = tmp_path / ".openrath" / "config.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text())["version"] == 1
    assert (tmp_path / ".openrath" / ".gitignore").read_text().startswith("*\n")
    assert (tmp_path / ".gitignore").read_text() == "build/\n.openrath/\n"
    store.save()
    assert (tmp_path / ".gitignore").read_text() == "build/\n.openrath/\n"
    # The cache sees the new file at once.
    assert ConfigStore.load().get_llm_provider("main") is not None


def test_a_readable_file_warns_once(home: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = _write(home / "config.json", EXAMPLE)
    os.chmod(path, 0o644)
    with caplog.at_level(logging.WARNING, logger="rath.config"):
        ConfigStore(path)
        ConfigStore(path)
    assert [r.getMessage() for r in caplog.records].count(
        f"{path} has permissions 644: other users may read the secrets in it; run: chmod 600 {path}"
    ) == 1


def test_provider_from_config(home: Path) -> None:
    _write(home / "config.json", EXAMPLE)
    main = Provider.from_config()
    assert (main.model, main.api_key, main.base_url, main.temperature) == (
        "gpt-test",
        "k-main",
        "http://127.0.0.1:9/v1",
        0.2,
    )
    claude = Provider.from_config("claude", temperature=0.9)
    assert claude.provider_kind == "anthropic" and claude.temperature == 0.9
    with pytest.raises(ConfigEntryNotFoundError, match="available: claude, main") as info:
        Provider.from_config("nope")
    assert isinstance(info.value, KeyError) and str(info.value).startswith("no LLM provider 'nope'")
