"""How the SQLite store ranks: safe FTS5 queries, BM25 floors, reciprocal-rank fusion.

docs/memory.md, "Lexical recall (BM25)" and "Embedding and hybrid recall".
"""

from __future__ import annotations

from collections.abc import Sequence

from rath.utils.text import words

RRF_K = 60
"""The reciprocal-rank-fusion constant: a hit ranked ``r`` in one list adds ``1 / (RRF_K + r)``."""

# FTS5's bm25() floors the idf of a word found in at least half of the rows at 1e-6, so a hit
# that matched only such words scores about 1e-6 per word: noise next to a hit that matched a
# distinctive word (dropped), kept when every hit matched only common words.
_RELATIVE_FLOOR = 1e-3
_NEGLIGIBLE_BM25 = 1e-4
# Function words that would match nearly every memory (English only; BM25's idf discounts the
# rest). The last line: the pieces contractions split into ("user's" -> "user", "s").
_STOPWORD_TEXT = """
a about above after again all also am an and any are as at be because been before being
both but by can could did do does doing down during each few for from further had has
have having he her here hers herself him himself his how i if in into is it its itself
just me more most my myself no nor not now of off on once only or other our ours
ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we
were what when where which while who whom why will with would you your yours yourself
yourselves
s t d ll m re ve don doesn didn isn aren wasn weren won wouldn shouldn couldn hasn haven hadn
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
Ranking = list[tuple[int, float]]


def match_expression(query: str) -> str | None:
    """An FTS5 ``MATCH`` for any word of ``query`` but stopwords; ``None`` if none is left.

    User text never reaches FTS5 as syntax: each word is a quoted string (words hold no
    quotes), so ``AND``, ``NEAR``, ``*``, ``"`` or ``:`` in a query are just text.
    """
    terms = list(dict.fromkeys(word for word in words(query) if word not in STOPWORDS))
    return " OR ".join(f'"{term}"' for term in terms) if terms else None


def lexical_ranking(rows: Sequence[tuple[int, float]]) -> Ranking:
    """FTS5 ``(id, bm25)`` rows as a higher-is-better ranking, noise below the floor dropped."""
    ranking = [(int(rid), -float(rank)) for rid, rank in rows if rank < 0]
    floor = ranking[0][1] * _RELATIVE_FLOOR if ranking else 0.0
    return [(rid, score) for rid, score in ranking if score >= floor]


def informative(lexical: Ranking) -> Ranking:
    """The lexical hits worth fusing (one that matched only very common words says nothing)."""
    return [(rid, score) for rid, score in lexical if score >= _NEGLIGIBLE_BM25]


def fuse(*rankings: Sequence[tuple[int, float]]) -> Ranking:
    """Reciprocal-rank fusion of best-first rankings: ``sum(1 / (RRF_K + rank))`` per id."""
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, (rid, _) in enumerate(ranking, start=1):
            fused[rid] = fused.get(rid, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))
