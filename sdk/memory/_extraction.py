"""Commit helpers: the fact-extraction prompt for a transcript, and parsing the model's reply.

These are pure functions; the activity that calls the model and writes the facts is built on
them. Only SYSTEM, USER and ASSISTANT text is shown to the model: tool results, assistant
rows without text (tool calls only) and injected memories (:func:`is_memory_row`) are left
out, so what was recalled is never extracted and stored again.
"""

from __future__ import annotations

import contextlib
import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from rath.memory._marker import is_memory_row
from rath.memory._tokens import fold_whitespace
from rath.memory.errors import ExtractionError, InvalidMemoryError
from rath.memory.results import MemoryRecord
from rath.memory.uri import MemoryURI, check_scope, check_segment
from rath.session.chunk import ChunkKind, ChunkRow

EXTRACTION_PROMPT = """\
You extract durable memories from a conversation between a user and an AI assistant.
Reply with ONLY a JSON array (no prose). Each item is an object:
  {"content": "<one self-contained sentence>", "category": "<category>"}
Categories: "preferences" (likes, dislikes, how the user wants things done), "profile" (who
the user is: name, role, location, circumstances), "facts" (durable facts about the user's
work, projects, tools or decisions).
Write each memory in the third person ("The user prefers ..."), specific enough to be useful
in a later conversation without this one. Leave out greetings, one-off requests, things only
the assistant guessed, instructions given to the assistant in SYSTEM lines, and anything the
known memories already say. Reply [] when there is nothing worth remembering."""

DEFAULT_FACT_CATEGORY = "facts"
MAX_TRANSCRIPT_CHARS = 24_000
MAX_ROW_CHARS = 4_000
_OMITTED = "[earlier conversation omitted]"
_FENCE = re.compile(r"```[A-Za-z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_CONTENT_KEYS = ("content", "fact", "memory", "text")
_TRAILING = ".!;:, "


class ExtractedFact(BaseModel):
    """A fact the model extracted, ready to be remembered.

    Attributes:
        content: One self-contained sentence.
        scope: The scope to remember it in.
        category: The category to remember it under.
    """

    model_config = ConfigDict(frozen=True)

    content: str
    scope: str = "user"
    category: str = DEFAULT_FACT_CATEGORY


def transcript_lines(rows: Iterable[ChunkRow]) -> list[str]:
    """The rows the extraction prompt shows, one ``ROLE: text`` string each, in order."""
    lines: list[str] = []
    for row in rows:
        if row.kind is ChunkKind.TOOL_RESULT or is_memory_row(row):
            continue
        content = row.payload.get("content")
        if not isinstance(content, str) or not content.strip():
            continue
        text = content.strip()
        if len(text) > MAX_ROW_CHARS:
            text = text[: MAX_ROW_CHARS - 3] + "..."
        lines.append(f"{row.kind.value.upper()}: {text}")
    return lines


def build_extraction_messages(
    rows: Sequence[ChunkRow],
    *,
    existing: Iterable[str | MemoryRecord] = (),
    max_chars: int = MAX_TRANSCRIPT_CHARS,
) -> list[dict[str, str]]:
    """The chat messages asking a model to extract memories from a transcript.

    Args:
        rows: The session's transcript rows.
        existing: Memories already stored (texts or records), listed so the model skips them.
        max_chars: The most transcript characters to send; the oldest rows are left out first.

    Returns:
        OpenAI chat messages: the extraction instructions, then the conversation. An empty
        list when the transcript has no text to extract from (no call is needed).
    """
    lines = transcript_lines(rows)
    if not lines:
        return []
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        if kept and used + len(line) > max_chars:
            kept.append(_OMITTED)
            break
        kept.append(line)
        used += len(line) + 2
    known = [item.content if isinstance(item, MemoryRecord) else item for item in existing]
    parts = []
    if known:
        parts.append("Known memories (do not repeat):\n" + "\n".join(f"- {k}" for k in known))
    parts.append("Conversation:\n" + "\n\n".join(reversed(kept)))
    return [
        {"role": "system", "content": EXTRACTION_PROMPT},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


def parse_extracted_facts(
    reply: str, *, scope: str = "user", category: str = DEFAULT_FACT_CATEGORY
) -> list[ExtractedFact]:
    """Parse a model's extraction reply into facts.

    Tolerates code fences and text around the JSON, a ``{"facts": [...]}`` wrapper, items that
    are plain strings, and OpenRath's ``{"uri": "memory://...", "content": ...}`` items (the
    URI's scope and category are used). Items without text are skipped; repeats in the reply
    are dropped.

    Args:
        reply: The model's reply text.
        scope: The scope for items that name none.
        category: The category for items that name none (or an invalid one).

    Returns:
        The facts, in the reply's order (possibly empty).

    Raises:
        ExtractionError: The reply holds no JSON array.
    """
    check_scope(scope)
    check_segment("category", category)
    items = json_list(reply)
    facts: list[ExtractedFact] = []
    seen: set[str] = set()
    for item in items:
        fact = _fact(item, scope, category)
        if fact is None:
            continue
        key = fact_key(fact.content)
        if key not in seen:
            seen.add(key)
            facts.append(fact)
    return facts


def dedup_facts(
    facts: Iterable[ExtractedFact], existing: Iterable[str | MemoryRecord]
) -> list[ExtractedFact]:
    """Drop facts that restate an existing memory or an earlier fact.

    Two texts are the same fact when they match after Unicode normalisation, case folding,
    whitespace folding and dropping trailing punctuation.
    """
    seen = {fact_key(item.content if isinstance(item, MemoryRecord) else item) for item in existing}
    kept: list[ExtractedFact] = []
    for fact in facts:
        key = fact_key(fact.content)
        if key not in seen:
            seen.add(key)
            kept.append(fact)
    return kept


def fact_key(text: str) -> str:
    """The form two facts are compared in (see :func:`dedup_facts`)."""
    return fold_whitespace(unicodedata.normalize("NFKC", text).casefold()).rstrip(_TRAILING)


def json_list(reply: str) -> list[Any]:
    """The JSON array in a model's reply (fenced, bare, or wrapped in ``facts``/``memories``).

    Raises:
        ExtractionError: The reply holds no JSON array.
    """
    if not isinstance(reply, str):
        raise ExtractionError(f"the extraction reply is {type(reply).__name__}, not text")
    candidates = [match.group(1) for match in _FENCE.finditer(reply)] + [reply]
    for text in candidates:
        for snippet in (text.strip(), _bracketed(text)):
            if not snippet:
                continue
            try:
                value = json.loads(snippet)
            except ValueError:
                continue
            if isinstance(value, dict):
                value = next(
                    (value[k] for k in ("facts", "memories") if isinstance(value.get(k), list)),
                    None,
                )
            if isinstance(value, list):
                return value
    raise ExtractionError(
        f"the extraction reply is not a JSON array of facts: {fold_whitespace(reply)[:200]!r}"
    )


def _bracketed(text: str) -> str:
    start, end = text.find("["), text.rfind("]")
    return text[start : end + 1] if 0 <= start < end else ""


def _fact(item: Any, scope: str, category: str) -> ExtractedFact | None:
    if isinstance(item, str):
        content: Any = item
    elif isinstance(item, dict):
        content = next((item[k] for k in _CONTENT_KEYS if isinstance(item.get(k), str)), None)
        uri = item.get("uri")
        if isinstance(uri, str):
            try:
                parsed = MemoryURI.parse(uri)
            except InvalidMemoryError:
                pass
            else:
                scope, category = parsed.scope, parsed.category
        named = item.get("category")
        if isinstance(named, str):
            with contextlib.suppress(InvalidMemoryError):
                category = check_segment("category", named.strip().lower())
    else:
        return None
    if not isinstance(content, str) or not content.strip():
        return None
    return ExtractedFact(content=fold_whitespace(content), scope=scope, category=category)
