"""The local backend's resource ingest and conversation commits.

A resource is copied once per content (``resources/<sha256[:16]>/source<ext>``, or
``<target>/<sha256[:16]>/`` for an explicit ``target_uri``) with a
``meta.md`` that find can rank. A commit archives the messages
(``session/<id>/commits/<UTC stamp>/messages.json``); with ``wait=True`` and a chat client
(``options["chat"]``, with ``complete(RathLLMChatRequest)``, or ``options["chat_provider"]``,
a config entry) it also asks the model for memories and writes them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlparse

import httpx

from rath.llm.chat_request import RathLLMChatRequest, RathLLMMessage
from rath.llm.openai import RathOpenAIChatClient
from rath.llm.provider import Provider
from rath.memory._extraction import json_list
from rath.memory.adapters import _files
from rath.memory.op_types import MemoryOpCommit, MemoryOpResource
from rath.memory.results import (
    MemoryCommitResult,
    MemoryExecutionFailure,
    MemoryResult,
    MemoryWriteResult,
)
from rath.memory.uri import valid_memory_uri

__all__ = ["EXTRACTION_INSTRUCTIONS", "commit", "ingest"]

EXTRACTION_INSTRUCTIONS = (
    "You read a conversation and pick out what is worth remembering about the user, "
    "their preferences and their work. Answer with a STRICT JSON array and nothing else. "
    'Each item is {"uri": "memory://user/memories/extracted/<short-slug>", "content": '
    '"<one sentence>"}. Answer [] when nothing is worth remembering.'
)
_FETCH_TIMEOUT = 30.0


def ingest(root: Path, op: MemoryOpResource) -> MemoryResult:
    """Copy ``op.source`` (a file or an http(s) URL) into the store, once per content.

    It lands in ``<target>/<sha256[:16]>/`` (``target_uri``, else ``memory://resources``), so
    different resources sent to one target stay apart; the result's URI names that directory.

    Raises:
        ValueError: ``target_uri`` is not a memory URI inside the store (checked first).
    """
    target = _files.path_of(root, op.target_uri) if op.target_uri else root / "resources"
    fetched = _fetch(op.source)
    if isinstance(fetched, MemoryExecutionFailure):
        return fetched
    data, name = fetched
    digest = hashlib.sha256(data).hexdigest()[:16]
    directory = target / digest
    directory.mkdir(parents=True, exist_ok=True)
    blob = directory / ("source" + PurePosixPath(name).suffix)
    if not (blob.is_file() and blob.stat().st_size == len(data)):
        blob.write_bytes(data)
    (directory / "meta.md").write_text(
        f"# Resource {digest}\n\n- source: {op.source}\n- original_name: {name}\n"
        f"- bytes: {len(data)}\n\n## Reason\n\n{op.reason}\n\n## Instruction\n\n"
        f"{op.instruction}\n"
    )
    return MemoryWriteResult(uri=_files.uri_of(root, directory), bytes_written=len(data))


def commit(root: Path, op: MemoryOpCommit, options: Mapping[str, Any]) -> MemoryResult:
    """Archive ``op.messages``; extract memories when asked to wait and a model is set."""
    sid = op.session_id
    if not sid or "/" in sid or sid in (".", ".."):
        return MemoryExecutionFailure(
            "invalid_uri", f"commit needs a plain session id, not {sid!r}"
        )
    commits = root / "session" / sid / "commits"
    stamp = datetime.now(UTC)
    while (directory := commits / stamp.strftime("%Y%m%dT%H%M%S%f")).exists():
        stamp = stamp.replace(microsecond=(stamp.microsecond + 1) % 1_000_000)
    directory.mkdir(parents=True)
    messages = [dict(message) for message in op.messages]
    (directory / "messages.json").write_text(json.dumps(messages, ensure_ascii=False, indent=2))
    archived = _files.uri_of(root, directory / "messages.json")
    if not op.wait:
        return MemoryCommitResult(task_id=None, archived_uri=archived, extracted_count=-1)
    chat = _chat(options)
    if chat is None:
        return MemoryCommitResult(task_id=None, archived_uri=archived, extracted_count=0)
    try:
        written = _extract(root, chat, messages)
    except Exception as exc:
        return MemoryExecutionFailure(
            "extraction_failed", f"memory extraction failed: {exc}", archived
        )
    return MemoryCommitResult(task_id=None, archived_uri=archived, extracted_count=written)


def _fetch(source: str) -> tuple[bytes, str] | MemoryExecutionFailure:
    if urlparse(source).scheme in ("http", "https"):
        try:
            response = httpx.get(source, timeout=_FETCH_TIMEOUT, follow_redirects=True)
        except httpx.HTTPError as exc:
            return MemoryExecutionFailure("transport", f"cannot fetch {source}: {exc}")
        if response.status_code == 404:
            return MemoryExecutionFailure("not_found", f"{source} answered 404", source)
        if response.is_error:
            return MemoryExecutionFailure("transport", f"{source} answered {response.status_code}")
        return response.content, PurePosixPath(urlparse(source).path).name or "index.html"
    path = Path(source).expanduser()
    if not path.is_file():
        return MemoryExecutionFailure("not_found", f"no file {source}", source)
    return path.read_bytes(), path.name


def _chat(options: Mapping[str, Any]) -> Any:
    if options.get("chat") is not None:
        return options["chat"]
    name = options.get("chat_provider")
    return RathOpenAIChatClient(Provider.from_config(str(name))) if name else None


def _extract(root: Path, chat: Any, messages: list[dict[str, Any]]) -> int:
    transcript = "\n".join(f"{m.get('role')}: {m.get('content') or ''}" for m in messages)
    request = RathLLMChatRequest(
        messages=[
            RathLLMMessage(role="system", content=EXTRACTION_INSTRUCTIONS),
            RathLLMMessage(role="user", content=transcript),
        ],
        temperature=0,
    )
    reply = chat.complete(request).primary_choice.message.content or ""
    written = 0
    for item in json_list(reply):
        if not isinstance(item, dict):
            continue
        uri, content = item.get("uri"), item.get("content")
        if not (isinstance(uri, str) and valid_memory_uri(uri) and isinstance(content, str)):
            continue
        base = _files.path_of(root, uri)
        if not _files.is_entry(root, base) or not content.strip():
            continue
        path = base.with_name(base.name + ".md")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content.strip())
        written += 1
    return written
