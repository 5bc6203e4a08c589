"""Embedding recall: the fake server's wire protocol, OpenAIEmbedder, and embedding/hybrid ranking.

The embedder under test is the real ``OpenAIEmbedder`` (the official SDK) talking HTTP to
``FakeEmbeddingServer`` on 127.0.0.1; nothing is mocked.
"""

from __future__ import annotations

import math
import pickle
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest

from rath.errors import ConfigError, MemoryStoreError
from rath.memory import (
    EmbeddingError,
    ExtractionError,
    LocalMemoryStore,
    MemoryHit,
    OpenAIEmbedder,
)
from rath.testing.fake_embedder import FakeEmbeddingServer, trigram_embedding

FACTS = [
    "The user prefers dark mode in every editor.",
    "The user lives in Lisbon, Portugal.",
    "The deploy pipeline runs on GitHub Actions.",
    "The user is allergic to peanuts.",
]


@pytest.fixture
def server() -> Iterator[FakeEmbeddingServer]:
    with FakeEmbeddingServer() as running:
        yield running


@pytest.fixture
def embedder(server: FakeEmbeddingServer) -> Iterator[OpenAIEmbedder]:
    made = OpenAIEmbedder("fake-embedding", base_url=server.base_url)
    yield made
    made.close()


@pytest.fixture
def store(tmp_path: Path, embedder: OpenAIEmbedder) -> Iterator[LocalMemoryStore]:
    with LocalMemoryStore(tmp_path / "m.db", embedder=embedder) as opened:
        for content in FACTS:
            opened.remember(content)
        yield opened


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def contents(hits: list[MemoryHit]) -> list[str]:
    return [hit.content for hit in hits]


def test_fake_server_speaks_the_openai_wire_protocol(server: FakeEmbeddingServer) -> None:
    client = openai.OpenAI(base_url=server.base_url, api_key="test-key", max_retries=0)
    try:
        # The SDK asks for base64 by default and decodes it; ask for floats explicitly too.
        packed = client.embeddings.create(model="m", input=["dark mode", "peanuts"])
        plain = client.embeddings.create(model="m", input="dark mode", encoding_format="float")
        small = client.embeddings.create(model="m", input="x", dimensions=32)
        with pytest.raises(openai.BadRequestError, match="model"):
            client.embeddings.create(model="", input="x")
    finally:
        client.close()
    assert [item.index for item in packed.data] == [0, 1]
    assert packed.model == "m" and packed.usage.total_tokens == 3
    expected = trigram_embedding("dark mode")
    assert plain.data[0].embedding == pytest.approx(expected, abs=1e-12)
    assert packed.data[0].embedding == pytest.approx(expected, abs=1e-6)
    assert len(small.data[0].embedding) == 32
    assert server.requests[0].authorization == "Bearer test-key"
    assert server.requests[0].body["encoding_format"] == "base64"


def test_trigram_vectors_put_similar_texts_close() -> None:
    anchor = trigram_embedding("The user prefers dark mode in every editor.")
    assert math.isclose(cosine(anchor, anchor), 1.0)
    near = cosine(anchor, trigram_embedding("dark-mode editors"))
    far = cosine(anchor, trigram_embedding("allergic to peanuts"))
    assert near > 0.3 > far
    assert trigram_embedding("same text") == trigram_embedding("same text")


def test_embedder_batches_and_keeps_order(server: FakeEmbeddingServer) -> None:
    embedder = OpenAIEmbedder("fake-embedding", base_url=server.base_url, batch_size=2)
    texts = [f"text number {i}" for i in range(5)]
    try:
        vectors = embedder.embed(texts)
    finally:
        embedder.close()
    assert len(server.requests) == 3
    assert [body["input"] for body in (r.body for r in server.requests)] == [
        texts[0:2],
        texts[2:4],
        texts[4:5],
    ]
    for text, vector in zip(texts, vectors, strict=True):
        assert vector == pytest.approx(trigram_embedding(text), abs=1e-12)


@pytest.mark.parametrize(
    ("status", "retryable"), [(429, True), (503, True), (500, True), (400, False), (404, False)]
)
def test_endpoint_errors_are_classified_once(
    embedder: OpenAIEmbedder, server: FakeEmbeddingServer, status: int, retryable: bool
) -> None:
    server.fail_next(status, retry_after=2.5 if status == 429 else None)
    with pytest.raises(EmbeddingError, match=f"HTTP {status}") as caught:
        embedder.embed(["x"])
    assert caught.value.retryable is retryable
    assert caught.value.retry_after == (2.5 if status == 429 else None)
    assert len(server.requests) == 1  # max_retries=0: the SDK did not retry on its own


def test_unreachable_endpoint_is_retryable(tmp_path: Path) -> None:
    with FakeEmbeddingServer() as stopped:
        base_url = stopped.base_url
    embedder = OpenAIEmbedder("fake-embedding", base_url=base_url, timeout=5)
    with pytest.raises(EmbeddingError, match="cannot reach") as caught:
        embedder.embed(["x"])
    assert caught.value.retryable is True


def test_key_comes_from_the_named_variable_and_never_reaches_messages(
    server: FakeEmbeddingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-test-0123456789abcdef"
    monkeypatch.setenv("MY_EMBEDDING_KEY", secret)
    embedder = OpenAIEmbedder(
        "fake-embedding", base_url=server.base_url, api_key_env="MY_EMBEDDING_KEY"
    )
    server.fail_next(401, message=f"Incorrect API key provided: {secret}")
    with pytest.raises(EmbeddingError) as caught:
        embedder.embed(["x"])
    assert secret not in str(caught.value) and "[redacted]" in str(caught.value)
    assert caught.value.retryable is False
    assert server.requests[0].authorization == f"Bearer {secret}"
    assert secret not in repr(embedder)


def test_no_key_and_no_base_url_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        OpenAIEmbedder("text-embedding-3-small").embed(["x"])


def test_embedding_recall_finds_misspelled_queries(store: LocalMemoryStore) -> None:
    assert store.recall("Lisbn Portugl", mode="lexical") == []
    hits = store.recall("Lisbn Portugl", mode="embedding", top_k=2)
    assert contents(hits)[0] == "The user lives in Lisbon, Portugal."
    assert all(hit.score == hit.embedding_score and hit.score > 0 for hit in hits)
    assert all(hit.lexical_score is None for hit in hits)


def test_hybrid_fuses_both_rankings(store: LocalMemoryStore) -> None:
    hits = store.recall("dark editor theme", top_k=4)
    best = hits[0]
    assert best.content == "The user prefers dark mode in every editor."
    assert best.lexical_score is not None and best.embedding_score is not None
    # Reciprocal-rank fusion: first in both lists gives 2 / (60 + 1).
    assert best.score == pytest.approx(2 / 61)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    # A misspelled query: lexical alone finds nothing, hybrid still finds the memory.
    assert contents(store.recall("Lisbn", top_k=1)) == ["The user lives in Lisbon, Portugal."]


def test_min_similarity_drops_weak_embedding_matches(
    tmp_path: Path, embedder: OpenAIEmbedder
) -> None:
    with LocalMemoryStore(tmp_path / "m.db", embedder=embedder, min_similarity=0.95) as store:
        for content in FACTS:
            store.remember(content)
        assert store.recall("Lisbn Portugl", mode="embedding") == []
        exact = store.recall("The user is allergic to peanuts.", mode="embedding")
        assert contents(exact) == ["The user is allergic to peanuts."]


def test_punctuation_query_makes_no_request(
    store: LocalMemoryStore, server: FakeEmbeddingServer
) -> None:
    before = len(server.requests)
    assert store.recall("?!? ...") == []
    assert len(server.requests) == before


def test_memories_written_without_an_embedder_are_embedded_on_first_recall(
    tmp_path: Path, server: FakeEmbeddingServer
) -> None:
    path = tmp_path / "m.db"
    with LocalMemoryStore(path) as plain:
        for content in FACTS:
            plain.remember(content)
    first = OpenAIEmbedder("model-a", base_url=server.base_url)
    with LocalMemoryStore(path, embedder=first) as store:
        assert contents(store.recall("Lisbn", mode="embedding", top_k=1)) == [
            "The user lives in Lisbon, Portugal."
        ]
        requests = len(server.requests)  # one backfill batch + the query
        assert requests == 2
        store.recall("peanut", mode="embedding")
        assert len(server.requests) == requests + 1  # only the query this time
    second = OpenAIEmbedder("model-b", base_url=server.base_url)
    with LocalMemoryStore(path, embedder=second) as store:
        store.recall("peanut", mode="embedding")
    db = sqlite3.connect(path)
    try:
        counts = dict(db.execute("SELECT model, count(*) FROM vectors GROUP BY model").fetchall())
    finally:
        db.close()
    assert counts == {"model-a": len(FACTS), "model-b": len(FACTS)}


def test_a_failing_embedder_fails_remember_without_writing(
    tmp_path: Path, embedder: OpenAIEmbedder, server: FakeEmbeddingServer
) -> None:
    with LocalMemoryStore(tmp_path / "m.db", embedder=embedder) as store:
        server.fail_next(503)
        with pytest.raises(EmbeddingError):
            store.remember("The user likes tea.", key="k1")
        assert store.list() == []
        record = store.remember("The user likes tea.", key="k1")
        assert store.list() == [record]


def test_forget_removes_vectors(store: LocalMemoryStore) -> None:
    (hit,) = store.recall("peanuts", mode="lexical", top_k=1)
    store.forget(hit.uri)
    assert "The user is allergic to peanuts." not in contents(
        store.recall("allergic to peanuts", mode="embedding", top_k=10)
    )
    db = sqlite3.connect(store.path)
    try:
        (orphans,) = db.execute(
            "SELECT count(*) FROM vectors WHERE memory_id NOT IN (SELECT id FROM memories)"
        ).fetchone()
    finally:
        db.close()
    assert orphans == 0


def test_errors_keep_their_flags_through_pickling() -> None:
    embedding = pickle.loads(pickle.dumps(EmbeddingError("x", retryable=False, retry_after=1.5)))
    assert (type(embedding), embedding.retryable, embedding.retry_after) == (
        EmbeddingError,
        False,
        1.5,
    )
    for error in (MemoryStoreError("y", retryable=False), ExtractionError("z")):
        copy = pickle.loads(pickle.dumps(error))
        assert (type(copy), str(copy), copy.retryable) == (type(error), str(error), error.retryable)
