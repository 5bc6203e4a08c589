"""What a memory store holds and returns: records and scored hits (serialisable values)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict


class MemoryRecord(BaseModel):
    """One remembered piece of knowledge.

    Attributes:
        uri: ``memory://<scope>/memories/<category>/<id>``.
        content: The remembered text.
        scope: The URI's scope (``user``, ``agent``, ``session`` or ``resources``).
        category: The URI's category.
        created_at: When it was first written (UTC).
        session_id: The session it was learned from, if the writer said.
    """

    model_config = ConfigDict(frozen=True)

    uri: str
    content: str
    scope: str
    category: str
    created_at: datetime
    session_id: str | None = None


class MemoryHit(BaseModel):
    """A recalled record with its score. Higher scores are better; every score is positive.

    Attributes:
        record: The recalled record.
        score: The ranking score: BM25 for lexical recall, cosine similarity for embedding
            recall, the reciprocal-rank-fusion sum for hybrid recall.
        lexical_score: The record's BM25 score (positive), if the lexical search found it.
        embedding_score: Its cosine similarity to the query, if the embedding search ranked it.
    """

    model_config = ConfigDict(frozen=True)

    record: MemoryRecord
    score: float
    lexical_score: float | None = None
    embedding_score: float | None = None

    @property
    def uri(self) -> str:
        """The record's URI."""
        return self.record.uri

    @property
    def content(self) -> str:
        """The record's content."""
        return self.record.content

    @property
    def snippet(self) -> str:
        """The content as a backend plane's hit shows it (OpenRath's ``MemoryHit.snippet``)."""
        return snippet(self.record.content)

    @property
    def level(self) -> str:
        """Always ``"detail"``: a record is read whole."""
        return "detail"


SNIPPET_CHARS = 200


def snippet(text: str) -> str:
    """``text`` stripped, cut at :data:`SNIPPET_CHARS` with ``...`` when longer."""
    text = text.strip()
    return text if len(text) <= SNIPPET_CHARS else text[:SNIPPET_CHARS] + "..."
