"""rath.config matches OpenRath's ConfigStore, secrets helpers and module paths (pure tests)."""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import rath.config
from rath.config import ConfigError, ConfigStore, LLMProviderConfig, MCPServerConfig, secrets
from rath.config import paths as paths_module
from rath.config import schema as schema_module
from rath.config import store as store_module
from rath.config.schema import MemoryProviderConfig
from rath.config.secrets import ensure_project_gitignore_entry, warn_if_world_readable
from rath.errors import ConfigEntryNotFoundError


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("OPENRATH_HOME", str(tmp_path / "home"))
    ConfigStore._cache.clear()
    secrets._WORLD_READABLE_WARNED.clear()
    yield tmp_path / "home"
    ConfigStore._cache.clear()


def _store(tmp_path: Path) -> ConfigStore:
    store = ConfigStore(tmp_path / "config.json")
    llm = store.config.llm
    llm.providers["alpha"] = LLMProviderConfig(model="a")
    llm.providers["beta"] = LLMProviderConfig(provider_kind="anthropic", model="b")
    store.config.memory.providers["notes"] = MemoryProviderConfig(path="/n")
    store.config.mcp.servers["fs"] = MCPServerConfig(command=["fs"])
    store.config.mcp.servers["web"] = MCPServerConfig(command=["web"])
    return store


def _seed(home: Path, api_key: str = "k1") -> Path:
    store = ConfigStore(home / "config.json")
    store.config.llm.providers["main"] = LLMProviderConfig(model="m", api_key=api_key)
    store.save()
    return store.path


def test_no_llm_name_means_the_default_provider(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.config.llm.default_provider = "beta"
    assert store.get_llm_provider(None) is store.config.llm.providers["beta"]


def test_no_llm_name_and_no_default_is_a_key_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigEntryNotFoundError, match="no LLM provider name") as info:
        _store(tmp_path).get_llm_provider(None)
    assert isinstance(info.value, KeyError) and "available: alpha, beta" in str(info.value)


def test_an_unknown_llm_provider_lists_the_names(tmp_path: Path) -> None:
    with pytest.raises(KeyError, match=r"no LLM provider 'gamma' .*available: alpha, beta"):
        _store(tmp_path).get_llm_provider("gamma")


def test_memory_lookups_fall_back_and_fail_as_openrath(tmp_path: Path) -> None:
    store = _store(tmp_path)
    with pytest.raises(KeyError, match="no memory provider name"):
        store.get_memory_provider(None)
    with pytest.raises(KeyError, match=r"'other'.*available: notes"):
        store.get_memory_provider("other")
    store.config.memory.default_provider = "notes"
    assert store.get_memory_provider(None).path == "/n"


def test_an_unknown_mcp_server_lists_the_names(tmp_path: Path) -> None:
    with pytest.raises(KeyError, match=r"no MCP server 'db' .*available: fs, web"):
        _store(tmp_path).get_mcp_server("db")


def test_enabled_mcp_servers_is_a_list_in_the_enabled_order(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.config.mcp.default_enabled = ["web", "fs"]
    assert [server.command for server in store.enabled_mcp_servers()] == [["web"], ["fs"]]


def test_an_enabled_mcp_server_that_is_missing_is_a_key_error(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.config.mcp.default_enabled = ["fs", "gone"]
    with pytest.raises(KeyError, match="'gone'"):
        store.enabled_mcp_servers()


def test_the_missing_helper_says_no_name_was_given(tmp_path: Path) -> None:
    store = _store(tmp_path)
    error = store.missing("LLM provider", None, ["alpha"], unset="(llm.default_provider is unset)")
    assert str(error).startswith("no LLM provider name given (llm.default_provider is unset)")


def test_the_private_lookup_gives_none_for_a_fallback(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert store.find_llm_provider("gamma") is None and store.find_llm_provider(None) is None
    assert store.find_llm_provider("alpha") is store.config.llm.providers["alpha"]


def test_load_returns_the_same_store_while_the_file_is_unchanged(home: Path) -> None:
    _seed(home)
    first = ConfigStore.load()
    assert ConfigStore.load() is first
    assert rath.config.default_store() is first


def test_a_mutated_store_saved_is_what_the_next_load_reads(home: Path) -> None:
    _seed(home)
    first = ConfigStore.load()
    first.config.llm.providers["main"].api_key = "k2"
    first.save()
    second = ConfigStore.load()
    assert second is not first and second.config.llm.providers["main"].api_key == "k2"


def test_a_rewrite_of_another_size_in_the_same_tick_is_read_again(home: Path) -> None:
    path = _seed(home)
    first = ConfigStore.load()
    mtime = path.stat().st_mtime_ns
    path.write_text(json.dumps({"llm": {"providers": {"main": {"api_key": "a-longer-key"}}}}))
    os.utime(path, ns=(mtime, mtime))
    second = ConfigStore.load()
    assert second is not first and second.config.llm.providers["main"].api_key == "a-longer-key"


def test_a_missing_file_is_not_cached(home: Path) -> None:
    assert ConfigStore.load() is not ConfigStore.load()


def test_concurrent_saves_leave_one_whole_file_and_no_temporaries(home: Path) -> None:
    path = _seed(home)
    barrier = threading.Barrier(4)

    def save(tag: int) -> None:
        store = ConfigStore(path)
        store.config.llm.providers["main"].api_key = f"k-{tag}"
        barrier.wait(timeout=5)
        store.save()

    threads = [threading.Thread(target=save, args=(tag,)) for tag in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    saved = json.loads(path.read_text())["llm"]["providers"]["main"]["api_key"]
    assert saved in {f"k-{tag}" for tag in range(4)}
    assert not list(path.parent.glob(".config_*.tmp"))


@pytest.mark.parametrize("line", [".openrath", "/.openrath/", ".openrath/  "])
def test_an_existing_gitignore_line_in_another_form_is_not_duplicated(
    tmp_path: Path, line: str
) -> None:
    (tmp_path / ".gitignore").write_text(f"build/\n{line}\n")
    ensure_project_gitignore_entry(tmp_path)
    assert (tmp_path / ".gitignore").read_text() == f"build/\n{line}\n"


def test_a_loose_file_warns_once_on_openraths_logger(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "config.json"
    path.write_text("{}")
    os.chmod(path, 0o620)  # group write alone counts: any of 0o077
    with caplog.at_level(logging.WARNING, logger="rath.config.secrets"):
        warn_if_world_readable(path)
        warn_if_world_readable(path)
        ConfigStore(path)
    warnings = [r for r in caplog.records if r.name == "rath.config.secrets"]
    assert len(warnings) == 1 and "permissions 620" in warnings[0].getMessage()


def test_a_private_file_does_not_warn(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "config.json"
    path.write_text("{}")
    os.chmod(path, 0o600)
    with caplog.at_level(logging.WARNING, logger="rath.config.secrets"):
        warn_if_world_readable(path)
    assert not caplog.records


@pytest.mark.parametrize(
    ("text", "phrases"),
    [
        ('{"llm": ', ["not valid JSON", "line 1", "col 9"]),
        ("[1]", ["must be a JSON object", "got list"]),
        (
            '{"llm": {"providers": {"x": {"provider_kind": "cohere"}}}}',
            ["failed schema validation", "invalid at llm.providers.x.provider_kind"],
        ),
    ],
)
def test_a_broken_file_is_a_config_error_with_openraths_phrases(
    tmp_path: Path, text: str, phrases: list[str]
) -> None:
    path = tmp_path / "config.json"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        ConfigStore(path)
    assert all(phrase in str(info.value) for phrase in phrases)
    assert info.value.__cause__ is None  # a parser's error would quote the file, keys included


def test_openraths_module_paths_hold_the_same_objects() -> None:
    assert store_module.ConfigStore is ConfigStore and store_module.ConfigError is ConfigError
    assert store_module.default_store is rath.config.default_store
    assert schema_module.SCHEMA_VERSION == 1 and schema_module.RathConfig is rath.config.RathConfig
    assert paths_module.resolve_config_dir is rath.config.resolve_config_dir


def test_a_schema_error_does_not_carry_the_files_values(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"llm": {"providers": {"x": ["sk-secret-value"]}}}))
    with pytest.raises(ConfigError) as info:
        ConfigStore(path)
    assert info.value.__cause__ is None and info.value.__suppress_context__
    assert "sk-secret-value" not in str(info.value)
