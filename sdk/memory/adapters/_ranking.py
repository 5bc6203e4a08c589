"""How the local plane backend ranks entries: BM25, or embeddings when the store has them.

Every word counts (letters and digits of any script, case-folded) and an entry that shares
no word with the query is not a hit: OpenRath tokenised ASCII only and returned zero-score
entries, which put irrelevant memories into every prompt (inventory 9.2.22).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["Embed", "bm25_scores", "cosine_scores", "tokens"]

_WORD = re.compile(r"\w+")
_K1 = 1.5
_B = 0.75

Embed = Callable[[Sequence[str]], Sequence[Sequence[float]]]


def tokens(text: str) -> list[str]:
    """The words of ``text``, case-folded."""
    return [word.casefold() for word in _WORD.findall(text)]


def bm25_scores(query: str, documents: Sequence[str]) -> list[float]:
    """Okapi BM25 (k1 1.5, b 0.75) of each document for ``query``; 0 for no shared word."""
    terms = set(tokens(query))
    bags = [Counter(tokens(text)) for text in documents]
    if not terms or not bags:
        return [0.0] * len(documents)
    average = sum(sum(bag.values()) for bag in bags) / len(bags) or 1.0
    total = len(bags)
    idf = {
        term: math.log(1 + (total - n + 0.5) / (n + 0.5))
        for term in terms
        for n in [sum(1 for bag in bags if term in bag)]
    }
    scores = []
    for bag in bags:
        length = sum(bag.values())
        score = 0.0
        for term in terms:
            tf = bag.get(term, 0)
            if tf:
                score += idf[term] * tf * (_K1 + 1) / (tf + _K1 * (1 - _B + _B * length / average))
        scores.append(score)
    return scores


def cosine_scores(
    query: str, files: Sequence[Path], documents: Sequence[str], embed: Embed, model: str
) -> list[float]:
    """Cosine similarity of each document to ``query``.

    Document vectors are cached in ``<name>.vec`` beside each file, keyed by ``model``, and
    the missing ones are embedded in one batch.
    """
    vectors: list[Sequence[float] | None] = [_cached(f, model) for f in files]
    missing = [i for i, vector in enumerate(vectors) if vector is None]
    if missing:
        fresh = embed([documents[i] for i in missing])
        for i, vector in zip(missing, fresh, strict=True):
            vectors[i] = list(vector)
            _sidecar(files[i]).write_text(json.dumps({"model": model, "vector": list(vector)}))
    (query_vector,) = embed([query])
    return [_cosine(query_vector, vector or ()) for vector in vectors]


def _sidecar(path: Path) -> Path:
    return path.with_suffix(".vec")


def _cached(path: Path, model: str) -> list[float] | None:
    try:
        data = json.loads(_sidecar(path).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("model") != model:
        return None
    vector = data.get("vector")
    return [float(x) for x in vector] if isinstance(vector, list) else None


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0
