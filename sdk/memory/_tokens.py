"""Text normalisation shared by the store: safe full-text query terms and content digests.

User text never reaches FTS5 as query syntax: it is split into word tokens the way the
``unicode61`` tokenizer splits them (runs of letters and digits), and each token is sent as a
double-quoted string, so ``AND``, ``NEAR``, ``*``, ``"`` or ``:`` in a query are just text.
"""

from __future__ import annotations

import hashlib

from rath.utils.text import words

# Function words that would otherwise match nearly every memory ("what does the user like"
# matching every memory containing "the"). English only: other languages keep all their
# words, and BM25's idf still discounts whatever is common. The last line holds the pieces
# that contractions split into ("user's" -> "user", "s"; "don't" -> "don", "t").
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


def match_expression(query: str) -> str | None:
    """An FTS5 ``MATCH`` expression for ``query`` (any of its words), or ``None`` if it has none.

    Stopwords are dropped; a query of only stopwords or punctuation gives ``None``.
    """
    terms = list(dict.fromkeys(word for word in words(query) if word not in STOPWORDS))
    if not terms:
        return None
    # Tokens hold no quote characters (they are letters and digits), so quoting is enough.
    return " OR ".join(f'"{term}"' for term in terms)


def fold_whitespace(text: str) -> str:
    """``text`` with surrounding whitespace dropped and inner runs folded to one space."""
    return " ".join(text.split())


def content_digest(content: str) -> str:
    """The digest the store dedups on: sha256 of the whitespace-folded content."""
    return hashlib.sha256(fold_whitespace(content).encode()).hexdigest()
