"""Bounded one-line previews for summaries, repr and the Temporal UI."""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"[^\W_]+")


def preview(text: str, limit: int) -> str:
    """``text`` on one line (whitespace runs folded), cut to ``limit`` characters with ``...``."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def markdown_fields(*fields: tuple[str, object]) -> str:
    """Markdown for a run's static details in the Web UI: one ``**label** value`` per line."""
    return "  \n".join(f"**{label}** {value}" for label, value in fields)


def words(text: str) -> list[str]:
    """The word tokens of ``text``: NFKC-normalised, case-folded runs of letters and digits."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
