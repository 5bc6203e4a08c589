"""The ``local`` memory backend: a store is a directory of Markdown files, in OpenRath's layout.

Paths, find (BM25, or embeddings), resources and commits: docs/memory.md, "The memory plane".
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlparse

import httpx

from rath.llm.chat_request import RathLLMChatRequest, RathLLMMessage
from rath.llm.embedding import EmbeddingProvider
from rath.llm.openai import RathOpenAIChatClient
from rath.llm.openai.embedding import RathOpenAIEmbeddingClient
from rath.llm.provider import Provider
from rath.memory import op_types as ops
from rath.memory import results as res
from rath.memory._commit import json_list
from rath.memory.abc import MemoryBackend, MemoryStore, MemoryStoreSpec
from rath.memory.capabilities import MemoryCapabilities, ScopeModel
from rath.memory.persistence import PersistentMemoryRegistry
from rath.memory.registry import register
from rath.memory.uri import MEMORY_URI_PREFIX, SCOPES, split_memory_uri, valid_memory_uri

__all__ = ["EXTRACTION_INSTRUCTIONS", "LocalMemoryBackend"]

EXTRACTION_INSTRUCTIONS = (
    "You read a conversation and pick out what is worth remembering about the user, "
    "their preferences and their work. Answer with a STRICT JSON array and nothing else. "
    'Each item is {"uri": "memory://user/memories/extracted/<short-slug>", "content": '
    '"<one sentence>"}. Answer [] when nothing is worth remembering.'
)
Embed = Callable[[Sequence[str]], Sequence[Sequence[float]]]
_log = logging.getLogger(__name__)
_WRITE_MODES = ("replace", "write")
_HIDDEN_SUFFIXES = (".vec", ".meta.json")
_FETCH_TIMEOUT = 30.0
_WORD = re.compile(r"\w+")
_K1 = 1.5
_B = 0.75


@dataclass
class LocalStoreState:
    """What an open local store keeps: its directory and optional clients."""

    root: Path
    options: dict[str, Any]
    embed: Embed | None = None
    embedding_model: str = ""
    embedding_failed: bool = False


@register("local")
class LocalMemoryBackend(MemoryBackend):
    """Memory in Markdown files under the data dir."""

    @classmethod
    def capabilities(cls) -> MemoryCapabilities:
        """Files, lexical and embedding find, resources and commits; no intent search."""
        return MemoryCapabilities(
            scope_model=ScopeModel.HYBRID,
            supports_vector_search=True,
            supports_resource_ingest=True,
            supports_session_commit=True,
        )

    def _open(self, spec: MemoryStoreSpec | None) -> tuple[str, LocalStoreState]:
        options = dict((spec.options if spec else None) or {})
        if options.get("path"):
            root = Path(str(options["path"])).expanduser()
            root.mkdir(parents=True, exist_ok=True)
        elif spec is not None and spec.namespace:
            root = PersistentMemoryRegistry().ensure_local(spec.namespace)
        else:
            registry = PersistentMemoryRegistry()
            root = registry.local_path(registry.alloc_local_id())
        root = root.resolve()
        _touch_meta(root, options)
        return str(root), LocalStoreState(root=root, options=options)

    def _close(self, store: MemoryStore) -> None:
        _touch_meta(_state(store).root, _state(store).options)

    def forget(self, store: MemoryStore, uri: str) -> bool:
        """Delete the entry at ``uri`` and its sidecars."""
        try:
            found = _readable(_path_of(_state(store).root, uri))
        except ValueError:
            return False
        if found is None:
            return False
        found.unlink()
        found.with_suffix(".vec").unlink(missing_ok=True)
        return True

    def _dispatch(self, store: MemoryStore, op: ops.MemoryOp) -> res.MemoryResult:
        try:
            return _run(_state(store), op)
        except PermissionError as exc:
            return res.MemoryExecutionFailure("unauthorized", str(exc))
        except ValueError as exc:
            return res.MemoryExecutionFailure("invalid_uri", str(exc))
        except OSError as exc:
            return res.MemoryExecutionFailure("internal", str(exc))


def _state(store: MemoryStore) -> LocalStoreState:
    state = store.state
    assert isinstance(state, LocalStoreState)
    return state


def _run(state: LocalStoreState, op: ops.MemoryOp) -> res.MemoryResult:
    root = state.root
    if isinstance(op, ops.MemoryOpWrite):
        return _write(root, op)
    if isinstance(op, ops.MemoryOpRead):
        path = _readable(_path_of(root, op.uri))
        if path is None:
            return res.MemoryExecutionFailure("not_found", f"no memory at {op.uri}", op.uri)
        raw = path.read_bytes()
        data: str | bytes = raw if op.encoding is None else raw.decode(op.encoding)
        return res.MemoryReadResult(uri=op.uri, data=data, level=op.level)
    if isinstance(op, ops.MemoryOpList | ops.MemoryOpTree):
        depth = op.depth if isinstance(op, ops.MemoryOpTree) else 0
        return res.MemoryListResult(tuple(_entries(root, _path_of(root, op.uri), depth)))
    if isinstance(op, ops.MemoryOpFind | ops.MemoryOpSearch):
        return _find(state, op.query, op.target_uri, op.top_k)
    if isinstance(op, ops.MemoryOpResource):
        return _ingest(root, op)
    assert isinstance(op, ops.MemoryOpCommit)
    return _commit(root, op, state.options)


# A store's files: ``memory://<scope>/<a>/<b>`` is ``<store>/<scope>/<a>/<b>.md`` (or the file
# itself when it has an extension); sidecars and ``meta.json`` never show in listings.


def _path_of(root: Path, uri: str) -> Path:
    """The directory or base path ``uri`` names (``ValueError``: invalid, or leaves the store)."""
    scope, segments = split_memory_uri(uri)
    path = root.joinpath(scope, *segments) if scope else root
    resolved = path.resolve()
    if resolved != root.resolve() and root.resolve() not in resolved.parents:
        raise ValueError(f"memory URI {uri!r} leaves the store")
    return path


def _is_entry(root: Path, base: Path) -> bool:
    return root not in (base, base.parent)


def _readable(base: Path) -> Path | None:
    for candidate in (base.with_name(base.name + ".md"), base):
        if candidate.is_file():
            return candidate
    return None


def _uri_of(root: Path, path: Path) -> str:
    return MEMORY_URI_PREFIX + path.relative_to(root).as_posix().removesuffix(".md")


def _entries(root: Path, directory: Path, depth: int) -> Iterator[res.MemoryEntry]:
    if not directory.is_dir():
        return
    for child in sorted(directory.iterdir()):
        if child.name == "meta.json" or child.name.endswith(_HIDDEN_SUFFIXES):
            continue
        is_dir = child.is_dir()
        yield res.MemoryEntry(
            name=child.name if is_dir else child.name.removesuffix(".md"),
            uri=_uri_of(root, child),
            is_dir=is_dir,
            size=None if is_dir else child.stat().st_size,
        )
        if is_dir and depth > 0:
            yield from _entries(root, child, depth - 1)


def _write(root: Path, op: ops.MemoryOpWrite) -> res.MemoryResult:
    if op.mode not in _WRITE_MODES:
        return res.MemoryExecutionFailure(
            "unsupported", f"write mode {op.mode!r}: the local backend supports {_WRITE_MODES}"
        )
    base = _path_of(root, op.uri)
    if not _is_entry(root, base):
        return res.MemoryExecutionFailure("invalid_uri", f"{op.uri!r} names a scope, not an entry")
    path = base.with_name(base.name + ".md")
    path.parent.mkdir(parents=True, exist_ok=True)
    data = op.content.encode()
    path.write_bytes(data)
    for stale in (path.with_suffix(".vec"), path.with_name(path.name[:-3] + ".meta.json")):
        stale.unlink(missing_ok=True)
    return res.MemoryWriteResult(uri=op.uri, bytes_written=len(data))


def _find(state: LocalStoreState, query: str, target: str | None, top_k: int) -> res.MemoryResult:
    roots = [_path_of(state.root, target)] if target else [state.root / s for s in SCOPES]
    files = [
        path
        for root in roots
        if root.is_dir()
        for path in sorted(root.rglob("*.md"))
        if not path.name.startswith("source")
    ]
    texts = [path.read_text(errors="replace") for path in files]
    scores = None
    embed = _embedder(state)
    if embed is not None and files:
        try:
            scores = _cosine_scores(query, files, texts, embed, state.embedding_model)
        except Exception as exc:
            _log.warning("embedding ranking failed, using BM25 for this find: %s", exc)
    scores = _bm25_scores(query, texts) if scores is None else scores
    ranked = sorted(zip(scores, files, texts, strict=True), key=lambda item: -item[0])
    hits = tuple(
        res.MemoryHit(uri=_uri_of(state.root, path), score=score, snippet=res.snippet(text))
        for score, path, text in ranked[:top_k]
        if score > 0
    )
    return res.MemoryFindResult(hits=hits)


def _embedder(state: LocalStoreState) -> Embed | None:
    if state.embed is not None or state.embedding_failed:
        return state.embed
    client = state.options.get("embedding")
    name = state.options.get("embedding_provider")
    try:
        if client is None and name:
            client = RathOpenAIEmbeddingClient(EmbeddingProvider.from_config(str(name)))
    except Exception as exc:
        _log.warning("embedding client for %s failed, using BM25: %s", name, exc)
        state.embedding_failed = True
        return None
    if client is None:
        return None
    state.embed = client.embed
    provider = getattr(client, "provider", None)
    model = getattr(client, "model", None) or getattr(provider, "model", None)
    state.embedding_model = str(model or type(client).__name__)
    return state.embed


def _tokens(text: str) -> list[str]:
    return [word.casefold() for word in _WORD.findall(text)]


def _bm25_scores(query: str, documents: Sequence[str]) -> list[float]:
    """Okapi BM25 (k1 1.5, b 0.75) of each document for ``query``; 0 for no shared word.

    Every word of any script counts: OpenRath's ASCII tokens and zero-score hits put
    irrelevant memories into every prompt (inventory 9.2.22).
    """
    terms = set(_tokens(query))
    bags = [Counter(_tokens(text)) for text in documents]
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


def _cosine_scores(
    query: str, files: Sequence[Path], documents: Sequence[str], embed: Embed, model: str
) -> list[float]:
    """Cosine similarity of each document to ``query`` (vectors cached in ``<name>.vec``)."""
    vectors: list[Sequence[float] | None] = [_cached(f, model) for f in files]
    missing = [i for i, vector in enumerate(vectors) if vector is None]
    if missing:
        fresh = embed([documents[i] for i in missing])
        for i, vector in zip(missing, fresh, strict=True):
            vectors[i] = list(vector)
            files[i].with_suffix(".vec").write_text(
                json.dumps({"model": model, "vector": list(vector)})
            )
    (query_vector,) = embed([query])
    return [_cosine(query_vector, vector or ()) for vector in vectors]


def _cached(path: Path, model: str) -> list[float] | None:
    try:
        data = json.loads(path.with_suffix(".vec").read_text())
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


def _ingest(root: Path, op: ops.MemoryOpResource) -> res.MemoryResult:
    """Copy ``op.source`` (a file or an http(s) URL) into ``<target>/<sha256[:16]>/``, once."""
    target = _path_of(root, op.target_uri) if op.target_uri else root / "resources"
    fetched = _fetch(op.source)
    if isinstance(fetched, res.MemoryExecutionFailure):
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
    return res.MemoryWriteResult(uri=_uri_of(root, directory), bytes_written=len(data))


def _fetch(source: str) -> tuple[bytes, str] | res.MemoryExecutionFailure:
    if urlparse(source).scheme in ("http", "https"):
        try:
            response = httpx.get(source, timeout=_FETCH_TIMEOUT, follow_redirects=True)
        except httpx.HTTPError as exc:
            return res.MemoryExecutionFailure("transport", f"cannot fetch {source}: {exc}")
        if response.status_code == 404:
            return res.MemoryExecutionFailure("not_found", f"{source} answered 404", source)
        if response.is_error:
            return res.MemoryExecutionFailure(
                "transport", f"{source} answered {response.status_code}"
            )
        return response.content, PurePosixPath(urlparse(source).path).name or "index.html"
    path = Path(source).expanduser()
    if not path.is_file():
        return res.MemoryExecutionFailure("not_found", f"no file {source}", source)
    return path.read_bytes(), path.name


def _commit(root: Path, op: ops.MemoryOpCommit, options: Mapping[str, Any]) -> res.MemoryResult:
    """Archive ``op.messages``; extract memories when asked to wait and a model is set."""
    sid = op.session_id
    if not sid or "/" in sid or sid in (".", ".."):
        return res.MemoryExecutionFailure(
            "invalid_uri", f"commit needs a plain session id, not {sid!r}"
        )
    commits = root / "session" / sid / "commits"
    stamp = datetime.now(UTC)
    while (directory := commits / stamp.strftime("%Y%m%dT%H%M%S%f")).exists():
        stamp = stamp.replace(microsecond=(stamp.microsecond + 1) % 1_000_000)
    directory.mkdir(parents=True)
    messages = [dict(message) for message in op.messages]
    (directory / "messages.json").write_text(json.dumps(messages, ensure_ascii=False, indent=2))
    archived = _uri_of(root, directory / "messages.json")
    if not op.wait:
        return res.MemoryCommitResult(task_id=None, archived_uri=archived, extracted_count=-1)
    chat = options.get("chat")
    if chat is None and options.get("chat_provider"):
        chat = RathOpenAIChatClient(Provider.from_config(str(options["chat_provider"])))
    if chat is None:
        return res.MemoryCommitResult(task_id=None, archived_uri=archived, extracted_count=0)
    try:
        written = _extract(root, chat, messages)
    except Exception as exc:
        return res.MemoryExecutionFailure(
            "extraction_failed", f"memory extraction failed: {exc}", archived
        )
    return res.MemoryCommitResult(task_id=None, archived_uri=archived, extracted_count=written)


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
        if content.strip():
            done = _write(root, ops.MemoryOpWrite(uri, content.strip()))
            written += isinstance(done, res.MemoryWriteResult)
    return written


def _touch_meta(root: Path, options: dict[str, Any]) -> None:
    meta = root / "meta.json"
    now = datetime.now(UTC).isoformat()
    try:
        data = json.loads(meta.read_text())
    except (OSError, ValueError):
        data = {"schema_version": 1, "created_at": now}
    data |= {
        "last_used_at": now,
        "embedding_provider": options.get("embedding_provider"),
        "vlm_provider": options.get("vlm_provider"),
    }
    meta.write_text(json.dumps(data, indent=2))
