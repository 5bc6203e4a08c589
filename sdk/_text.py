"""Bounded one-line previews for summaries, repr and the Temporal UI."""

from __future__ import annotations


def preview(text: str, limit: int) -> str:
    """``text`` on one line (whitespace runs folded), cut to ``limit`` characters with ``...``."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
