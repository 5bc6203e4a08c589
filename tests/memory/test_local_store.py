"""LocalMemoryStore: persistence, idempotent writes, lexical (BM25) recall and its edge cases."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from rath.errors import MemoryStoreError
from rath.memory import (
    InvalidMemoryError,
    LocalMemoryStore,
    MemorySpec,
    MemoryURIError,
    default_memory_store,
    local_store_factory,
)
from rath.settings import Settings

FACTS = [
    ("The user prefers dark mode in every editor.", "preferences"),
    ("The user lives in Lisbon, Portugal.", "profile"),
    ("The user's favourite drink is a café au lait.", "preferences"),
    ("The deploy pipeline runs on GitHub Actions.", "facts"),
    ("The user is allergic to peanuts.", "profile"),
]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[LocalMemoryStore]:
    with LocalMemoryStore(tmp_path / "memory.db") as opened:
        for content, category in FACTS:
            opened.remember(content, "user", category)
        yield opened


def contents(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [hit.content for hit in hits]


def test_remember_returns_a_record_with_a_stable_uri(tmp_path: Path) -> None:
    with LocalMemoryStore(tmp_path / "m.db") as store:
        record = store.remember("  The user likes tea.  ", "user", "preferences", session_id="s1")
        assert record.content == "The user likes tea."
        assert record.uri.startswith("memory://user/memories/preferences/")
        assert record.session_id == "s1"
        assert record.created_at.tzinfo is not None
        assert store.get(record.uri) == record


def test_same_key_returns_the_first_record_whatever_the_content(tmp_path: Path) -> None:
    with LocalMemoryStore(tmp_path / "m.db") as store:
        first = store.remember("The user likes tea.", key="wf/run/1")
        again = store.remember("The user likes coffee.", key="wf/run/1")
        assert again == first
        assert contents(store.list()) == ["The user likes tea."]  # type: ignore[arg-type]


def test_same_content_in_a_scope_is_stored_once(tmp_path: Path) -> None:
    with LocalMemoryStore(tmp_path / "m.db") as store:
        first = store.remember("The user likes tea.", "user", "preferences")
        same = store.remember("The user   likes tea.\n", "user", "facts")
        other_scope = store.remember("The user likes tea.", "agent", "preferences")
        assert same == first
        assert other_scope.uri != first.uri
        assert len(store.list()) == 2
        assert [r.scope for r in store.list()] == ["user", "agent"]
        assert len(store.list(scope="agent")) == 1
        assert len(store.list(category="facts")) == 0


def test_forget_removes_the_record_from_recall(store: LocalMemoryStore) -> None:
    (hit,) = store.recall("peanuts allergy", top_k=1)
    assert store.forget(hit.uri) is True
    assert store.forget(hit.uri) is False
    assert store.get(hit.uri) is None
    assert store.recall("peanuts") == []


def test_lexical_ranking_puts_the_matching_memory_first(store: LocalMemoryStore) -> None:
    hits = store.recall("Which editor theme does the user like? dark or light", top_k=3)
    assert contents(hits)[0] == "The user prefers dark mode in every editor."
    assert all(hit.score > 0 and hit.lexical_score == hit.score for hit in hits)
    assert all(hit.embedding_score is None for hit in hits)
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)


def test_stemming_and_diacritics_match(store: LocalMemoryStore) -> None:
    assert contents(store.recall("where does she live?", top_k=1)) == [
        "The user lives in Lisbon, Portugal."
    ]
    assert contents(store.recall("CAFE", top_k=1)) == [
        "The user's favourite drink is a café au lait."
    ]


def test_zero_score_memories_are_never_returned(store: LocalMemoryStore) -> None:
    assert store.recall("quantum chromodynamics", top_k=4) == []
    # "user" is in every memory, so FTS5 weighs it near zero: next to a real match, the
    # memories that matched only "user" are dropped rather than ranked below it.
    hits = store.recall("user peanuts", top_k=4)
    assert contents(hits) == ["The user is allergic to peanuts."]
    assert len(store.recall("the user", top_k=4)) == 4


@pytest.mark.parametrize(
    "query",
    [
        "!!! ??? ...",
        "",
        "   ",
        "what is it",
        '"',
        "*",
        "NEAR AND OR NOT",
        "content:dark",
        'dark" OR "x',
        "(dark",
        "^dark",
        "dark*",
    ],
)
def test_user_text_is_never_fts_syntax(store: LocalMemoryStore, query: str) -> None:
    hits = store.recall(query)
    assert all(hit.score > 0 for hit in hits)
    if "dark" in query:
        assert contents(hits) == ["The user prefers dark mode in every editor."]
    else:
        assert hits == []


def test_one_store_is_safe_to_share_between_threads(tmp_path: Path) -> None:
    with LocalMemoryStore(tmp_path / "m.db") as store, ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: store.remember(f"thread fact {i}", key=f"k{i % 20}"), range(80)))
        found = list(pool.map(lambda i: store.recall(f"fact {i}"), range(20)))
    with LocalMemoryStore(tmp_path / "m.db") as store:
        assert len(store.list()) == 20
    assert all(hits for hits in found)


def test_recall_respects_scope_and_top_k(tmp_path: Path) -> None:
    with LocalMemoryStore(tmp_path / "m.db") as store:
        for i in range(6):
            store.remember(f"Project orion milestone {i} is done.", "agent", "facts")
        store.remember("Project orion is the user's favourite.", "user", "facts")
        assert len(store.recall("orion milestone", top_k=3)) == 3
        user_hits = store.recall("orion", scope="user")
        assert contents(user_hits) == ["Project orion is the user's favourite."]


def test_a_store_of_one_memory_still_matches(tmp_path: Path) -> None:
    with LocalMemoryStore(tmp_path / "m.db") as store:
        store.remember("The user likes tea.")
        assert contents(store.recall("tea")) == ["The user likes tea."]


def test_cyrillic_and_greek_are_searchable(tmp_path: Path) -> None:
    with LocalMemoryStore(tmp_path / "m.db") as store:
        store.remember("Пользователь любит зелёный чай.")
        store.remember("Ο χρήστης μένει στην Αθήνα.")  # noqa: RUF001
        store.remember("The user likes tea.")
        assert contents(store.recall("зеленый чай")) == ["Пользователь любит зелёный чай."]
        greek = store.recall("ΑΘΉΝΑ")
        assert contents(greek) == ["Ο χρήστης μένει στην Αθήνα."]  # noqa: RUF001


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: s.remember("   "), "empty content"),
        (lambda s: s.remember("x", "everyone"), "unknown memory scope"),
        (lambda s: s.remember("x", "user", "a b"), "invalid memory category"),
        (lambda s: s.remember("x", key=""), "idempotency key"),
        (lambda s: s.recall("x", top_k=0), "top_k"),
        (lambda s: s.recall("x", scope="nobody"), "unknown memory scope"),
        (lambda s: s.recall("x", mode="fuzzy"), "unknown recall mode"),
        (lambda s: s.recall("x", mode="embedding"), "needs an embedder"),
    ],
)
def test_bad_requests_are_user_errors(store: LocalMemoryStore, call: object, message: str) -> None:
    with pytest.raises(InvalidMemoryError, match=message):
        call(store)  # type: ignore[operator]


def test_get_and_forget_reject_bad_uris(store: LocalMemoryStore) -> None:
    with pytest.raises(MemoryURIError):
        store.get("memory://user/preferences")
    with pytest.raises(MemoryURIError):
        store.forget("file:///etc/passwd")


def test_a_closed_store_says_so(tmp_path: Path) -> None:
    store = LocalMemoryStore(tmp_path / "m.db")
    store.close()
    store.close()
    with pytest.raises(MemoryStoreError, match="is closed") as caught:
        store.recall("anything")
    assert caught.value.retryable is False


def test_memories_survive_reopening(tmp_path: Path) -> None:
    with LocalMemoryStore(tmp_path / "m.db") as store:
        record = store.remember("The user likes tea.")
    with LocalMemoryStore(tmp_path / "m.db") as store:
        assert store.list() == [record]
        assert contents(store.recall("tea")) == ["The user likes tea."]


def test_database_uses_wal_and_the_unicode_tokenizer(tmp_path: Path) -> None:
    LocalMemoryStore(tmp_path / "m.db").close()
    db = sqlite3.connect(tmp_path / "m.db")
    try:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        (sql,) = db.execute("SELECT sql FROM sqlite_master WHERE name = 'memories_fts'").fetchone()
        assert "unicode61 remove_diacritics 2" in sql
    finally:
        db.close()


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    LocalMemoryStore(tmp_path / "m.db").close()
    db = sqlite3.connect(tmp_path / "m.db")
    db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    db.commit()
    db.close()
    with pytest.raises(MemoryStoreError, match="schema version 99") as caught:
        LocalMemoryStore(tmp_path / "m.db")
    assert caught.value.retryable is False


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(MemoryStoreError, match="unusable"):
        LocalMemoryStore(path)


def test_default_store_lives_under_the_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATH_HOME", str(tmp_path / "home"))
    with default_memory_store() as store:
        assert store.path == tmp_path / "home" / "memory" / "memory.db"
        store.remember("The user likes tea.")
    assert (tmp_path / "home" / "memory" / "memory.db").is_file()
    settings = Settings.from_env()
    with default_memory_store(settings=settings) as store:
        assert contents(store.recall("tea")) == ["The user likes tea."]


def test_store_factory_maps_names_to_files(tmp_path: Path) -> None:
    factory = local_store_factory(directory=tmp_path)
    default, team = factory(MemorySpec()), factory(MemorySpec(store="team-a"))
    try:
        assert isinstance(default, LocalMemoryStore) and isinstance(team, LocalMemoryStore)
        assert default.path == tmp_path / "memory.db"
        assert team.path == tmp_path / "team-a.db"
    finally:
        default.close()
        team.close()
    with pytest.raises(InvalidMemoryError, match="store name"):
        MemorySpec(store="../escape")
