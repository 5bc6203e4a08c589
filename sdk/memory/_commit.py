"""Commit: extract durable facts from a transcript with one model call, and store each once.

The prompt, the reply's parsing and the writing: docs/memory.md, "Commit helpers".
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from rath.llm.chat_response import RathLLMTokenUsage
from rath.memory._inject import is_memory_row
from rath.memory.abc import MemoryStore
from rath.memory.errors import ExtractionError, InvalidMemoryError
from rath.memory.results import MemoryRecord
from rath.memory.spec import CommitResult
from rath.memory.uri import MemoryURI, check_scope, check_segment
from rath.session.chunk import ChunkKind, ChunkRow
from rath.utils.text import preview

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

KNOWN_MEMORIES = 20
"""How many related stored memories the extraction prompt lists."""
PREVIEW_CHARS = 160
DEFAULT_FACT_CATEGORY = "facts"
MAX_TRANSCRIPT_CHARS = 24_000
MAX_ROW_CHARS = 4_000
_QUERY_CHARS = 2_000
_SAME_FACT_CANDIDATES = 5
_OMITTED = "[earlier conversation omitted]"
_FENCE = re.compile(r"```[A-Za-z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_CONTENT_KEYS = ("content", "fact", "memory", "text")
_TRAILING = ".!;:, "

ChatMessages = list[dict[str, str]]
Chat = Callable[[ChatMessages], tuple[str, RathLLMTokenUsage | None]]
"""A model call: chat messages in, the reply text and its usage out."""


class ExtractedFact(BaseModel):
    """A fact the model extracted: one self-contained sentence, where to remember it."""

    model_config = ConfigDict(frozen=True)

    content: str
    scope: str = "user"
    category: str = DEFAULT_FACT_CATEGORY


def commit_rows(
    store: MemoryStore,
    rows: Sequence[ChunkRow],
    chat: Chat,
    *,
    session_id: str,
    scope: str = "user",
) -> CommitResult:
    """Extract facts from ``rows`` with ``chat`` and store them (all three steps, in process)."""
    messages = commit_messages(store, rows, scope=scope)
    if not messages:
        return CommitResult()
    reply, usage = chat(messages)
    facts = parse_extracted_facts(reply, scope=scope)
    return write_facts(store, facts, session_id=session_id, usage=usage)


def commit_messages(
    store: MemoryStore, rows: Sequence[ChunkRow], *, scope: str | None = None
) -> ChatMessages:
    """The extraction prompt for ``rows``, listing related memories of ``scope`` as known."""
    lines = _transcript_lines(rows)
    if not lines:
        return []
    text = " ".join(line.split(": ", 1)[-1] for line in lines)[-_QUERY_CHARS:]
    known = store.recall(text, top_k=KNOWN_MEMORIES, scope=scope)
    return build_extraction_messages(rows, existing=[hit.as_record() for hit in known])


def write_facts(
    store: MemoryStore,
    facts: Sequence[ExtractedFact],
    *,
    session_id: str,
    usage: RathLLMTokenUsage | None = None,
) -> CommitResult:
    """Store ``facts`` learned in session ``session_id``, each once (a retry finds them)."""
    uris: list[str] = []
    skipped = 0
    for fact in facts:
        wanted = _fact_key(fact.content)
        hits = store.recall(
            fact.content, top_k=_SAME_FACT_CANDIDATES, scope=fact.scope, mode="lexical"
        )
        same = next((hit.record for hit in hits if _fact_key(hit.content) == wanted), None)
        if same is not None and same.session_id != session_id:
            skipped += 1
            continue
        if same is None:
            key = commit_key(session_id, fact)
            same = store.remember(
                fact.content, fact.scope, fact.category, key=key, session_id=session_id
            )
        if same.uri not in uris:
            uris.append(same.uri)
    summary = "; ".join(fact.content for fact in facts) or "no facts"
    return CommitResult(
        written=len(uris),
        skipped=skipped,
        uris=tuple(uris),
        usage=usage,
        preview=preview(f"{len(uris)} written, {skipped} skipped: {summary}", PREVIEW_CHARS),
    )


def commit_key(session_id: str, fact: ExtractedFact) -> str:
    """The idempotency key of ``fact`` committed from session ``session_id``."""
    digest = hashlib.sha256(f"{fact.scope}\0{_fact_key(fact.content)}".encode()).hexdigest()
    return f"commit/{session_id}/{digest[:16]}"


def build_extraction_messages(
    rows: Sequence[ChunkRow],
    *,
    existing: Iterable[str | MemoryRecord] = (),
    max_chars: int = MAX_TRANSCRIPT_CHARS,
) -> list[dict[str, str]]:
    """The messages asking a model for memories (``existing`` listed to skip); ``[]``: no text."""
    lines = _transcript_lines(rows)
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
    """The facts of a model's extraction reply, in order, repeats dropped (docs/memory.md)."""
    check_scope(scope)
    check_segment("category", category)
    facts = [f for item in json_list(reply) if (f := _fact(item, scope, category)) is not None]
    return dedup_facts(facts, ())


def dedup_facts(
    facts: Iterable[ExtractedFact], existing: Iterable[str | MemoryRecord]
) -> list[ExtractedFact]:
    """Drop facts that restate an existing memory or an earlier fact (see docs)."""
    seen = {_fact_key(i.content if isinstance(i, MemoryRecord) else i) for i in existing}
    kept: list[ExtractedFact] = []
    for fact in facts:
        key = _fact_key(fact.content)
        if key not in seen:
            seen.add(key)
            kept.append(fact)
    return kept


def json_list(reply: str) -> list[Any]:
    """The JSON array in a model's reply (fenced, bare, or wrapped); else ``ExtractionError``."""
    if not isinstance(reply, str):
        raise ExtractionError(f"the extraction reply is {type(reply).__name__}, not text")
    for text in [match.group(1) for match in _FENCE.finditer(reply)] + [reply]:
        start, end = text.find("["), text.rfind("]")
        for snippet in (text.strip(), text[start : end + 1] if 0 <= start < end else ""):
            with contextlib.suppress(ValueError):
                value = json.loads(snippet) if snippet else None
                if isinstance(value, dict):
                    wrapped = (
                        value[k] for k in ("facts", "memories") if isinstance(value.get(k), list)
                    )
                    value = next(wrapped, None)
                if isinstance(value, list):
                    return value
    raise ExtractionError(
        f"the extraction reply is not a JSON array of facts: {_folded(reply)[:200]!r}"
    )


def _transcript_lines(rows: Iterable[ChunkRow]) -> list[str]:
    """``ROLE: text`` per shown row: no tool results, text-less rows or injected memories."""
    lines: list[str] = []
    for row in rows:
        content = row.payload.get("content")
        if row.kind is ChunkKind.TOOL_RESULT or is_memory_row(row) or not isinstance(content, str):
            continue
        text = content.strip()
        if len(text) > MAX_ROW_CHARS:
            text = text[: MAX_ROW_CHARS - 3] + "..."
        if text:
            lines.append(f"{row.kind.value.upper()}: {text}")
    return lines


def _fact(item: Any, scope: str, category: str) -> ExtractedFact | None:
    if isinstance(item, str):
        content: Any = item
    elif isinstance(item, dict):
        content = next((item[k] for k in _CONTENT_KEYS if isinstance(item.get(k), str)), None)
        uri = item.get("uri")
        if isinstance(uri, str):
            with contextlib.suppress(InvalidMemoryError):
                parsed = MemoryURI.parse(uri)
                scope, category = parsed.scope, parsed.category
        named = item.get("category")
        if isinstance(named, str):
            with contextlib.suppress(InvalidMemoryError):
                category = check_segment("category", named.strip().lower())
    else:
        return None
    if not isinstance(content, str) or not content.strip():
        return None
    return ExtractedFact(content=_folded(content), scope=scope, category=category)


def _fact_key(text: str) -> str:
    """The form two facts are compared in: NFKC, case-folded, whitespace folded, no end dot."""
    return _folded(unicodedata.normalize("NFKC", text).casefold()).rstrip(_TRAILING)


def _folded(text: str) -> str:
    return " ".join(text.split())
