"""MemorySpec: what Agent(memory=...) becomes, its JSON form, and the store it opens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rath import memory as rath_memory
from rath.errors import ConfigError
from rath.memory import (
    EmbeddingSpec,
    InvalidMemoryError,
    LocalMemoryStore,
    MemorySpec,
    MemoryStoreSpec,
    MemoryURIError,
    OpenAIEmbedder,
    memory_path,
    memory_spec,
    open_memory_store,
    parse_memory_prefix,
)


def test_agent_memory_arguments_become_specs(tmp_path: Path) -> None:
    assert memory_spec(None) is None
    assert memory_spec("local") == MemorySpec()
    assert memory_spec("local:notes") == MemorySpec(store="notes")
    spec = MemorySpec(scope="agent")
    assert memory_spec(spec) is spec
    embedder = OpenAIEmbedder("emb-1", base_url="http://127.0.0.1:9/v1", api_key_env="EMB_KEY")
    with LocalMemoryStore(tmp_path / "m.db", embedder=embedder, min_similarity=0.5) as store:
        described = memory_spec(store)
    assert described == MemorySpec(
        path=str(tmp_path / "m.db"),
        embedding=EmbeddingSpec(
            model="emb-1", base_url="http://127.0.0.1:9/v1", api_key_env="EMB_KEY"
        ),
        min_similarity=0.5,
    )


@pytest.mark.parametrize(
    ("memory", "message"),
    [
        ("openviking", r"memory='openviking' names no store.*rath\.memory\.get\(name\)\.open"),
        (42, "not int"),
        (True, "not bool"),
        (object(), "not object"),
    ],
)
def test_anything_else_is_a_config_error(memory: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        memory_spec(memory)


def test_a_plane_store_describes_itself_through_its_backend(tmp_path: Path) -> None:
    store = rath_memory.get("sqlite").open(
        MemoryStoreSpec(options={"path": str(tmp_path / "s.db")})
    )
    with store:
        assert memory_spec(store) == MemorySpec(path=str(tmp_path / "s.db"))


def test_a_spec_is_plain_json_without_secrets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EMB_KEY", "sk-test-very-secret-value")
    spec = MemorySpec(
        path=str(tmp_path / "m.db"),
        embedding=EmbeddingSpec(model="emb-1", api_key_env="EMB_KEY"),
    )
    text = spec.model_dump_json()
    assert "sk-test" not in text and json.loads(text)["embedding"]["api_key_env"] == "EMB_KEY"
    assert MemorySpec.model_validate_json(text) == spec
    assert hash(spec) == hash(MemorySpec.model_validate_json(text))  # frozen, usable as a key


def test_relative_paths_are_made_absolute_where_the_spec_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert MemorySpec(path="mem/x.db").path == str(tmp_path / "mem" / "x.db")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"store": "../etc"}, "invalid memory store name"),
        ({"scope": "everyone"}, "unknown memory scope"),
        ({"category": "a b"}, "invalid memory category"),
    ],
)
def test_bad_fields_are_invalid_memory_errors(fields: dict[str, str], message: str) -> None:
    with pytest.raises(InvalidMemoryError, match=message):
        MemorySpec.model_validate(fields)


def test_specs_open_stores_under_the_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATH_HOME", str(tmp_path / "home"))
    assert memory_path(MemorySpec()) == tmp_path / "home" / "memory" / "memory.db"
    assert memory_path(MemorySpec(store="notes")) == tmp_path / "home" / "memory" / "notes.db"
    with open_memory_store(MemorySpec(store="notes")) as store:
        store.remember("The user likes tea.")
    with LocalMemoryStore(tmp_path / "home" / "memory" / "notes.db") as reopened:
        assert [r.content for r in reopened.list()] == ["The user likes tea."]


def test_an_openai_embedding_spec_needs_a_model(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="needs a model"):
        open_memory_store(MemorySpec(path=str(tmp_path / "m.db"), embedding=EmbeddingSpec()))


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("user", ("user", None)),
        ("memory://agent", ("agent", None)),
        ("memory://user/memories/", ("user", None)),
        ("memory://user/memories", ("user", None)),
        ("viking://user/memories/preferences/", ("user", "preferences")),
        ("memory://user/memories/facts", ("user", "facts")),
    ],
)
def test_recall_targets(target: str, expected: tuple[str, str | None]) -> None:
    assert parse_memory_prefix(target) == expected


@pytest.mark.parametrize(
    "target",
    [
        "",
        "memory://",
        "nobody",
        "user/memories",
        "memory://user/things/",
        "memory://user/memories/a/b",
    ],
)
def test_bad_recall_targets(target: str) -> None:
    with pytest.raises(MemoryURIError):
        parse_memory_prefix(target)
