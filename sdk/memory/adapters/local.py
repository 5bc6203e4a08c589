"""The ``local`` memory backend: a store is a directory of Markdown files.

``open(spec)`` uses ``spec.options["path"]``, else ``<RATH_HOME>/memory/local/<namespace>/``
for a named ``spec.namespace`` (kept across runs), else a new directory there (OpenRath's
behaviour). The layout is OpenRath's (``<scope>/.../<name>.md``, ``.vec`` embedding sidecars,
``resources/<sha>/``, ``session/<id>/commits/<stamp>/messages.json``) and so is ``meta.json``.
Find ranks by embeddings when the store has an embedding client (``options["embedding"]``,
an object with ``embed(texts)``, or ``options["embedding_provider"]``, a config entry) and by
BM25 otherwise.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rath.llm.embedding import EmbeddingProvider
from rath.llm.openai.embedding import RathOpenAIEmbeddingClient
from rath.memory.abc import (
    MemoryBackend,
    MemoryCapabilities,
    MemoryStore,
    MemoryStoreSpec,
    ScopeModel,
)
from rath.memory.adapters import _files
from rath.memory.adapters._ingest import commit, ingest
from rath.memory.adapters._ranking import Embed, bm25_scores, cosine_scores
from rath.memory.op_types import (
    MemoryOp,
    MemoryOpCommit,
    MemoryOpFind,
    MemoryOpList,
    MemoryOpRead,
    MemoryOpResource,
    MemoryOpSearch,
    MemoryOpTree,
    MemoryOpWrite,
)
from rath.memory.persistence import PersistentMemoryRegistry
from rath.memory.registry import register
from rath.memory.results import (
    MemoryExecutionFailure,
    MemoryFindResult,
    MemoryHit,
    MemoryListResult,
    MemoryReadResult,
    MemoryResult,
    MemoryWriteResult,
    snippet,
)
from rath.memory.uri import SCOPES

__all__ = ["LocalMemoryBackend"]

_log = logging.getLogger(__name__)
_WRITE_MODES = ("replace", "write")


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
    """Memory in Markdown files under the data dir (see the module docstring)."""

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
        state = _state(store)
        try:
            found = _files.readable(_files.path_of(state.root, uri))
        except ValueError:
            return False
        if found is None:
            return False
        found.unlink()
        found.with_suffix(".vec").unlink(missing_ok=True)
        return True

    def _dispatch(self, store: MemoryStore, op: MemoryOp) -> MemoryResult:
        state = _state(store)
        try:
            return self._run(state, op)
        except PermissionError as exc:
            return MemoryExecutionFailure("unauthorized", str(exc))
        except ValueError as exc:
            return MemoryExecutionFailure("invalid_uri", str(exc))
        except OSError as exc:
            return MemoryExecutionFailure("internal", str(exc))

    def _run(self, state: LocalStoreState, op: MemoryOp) -> MemoryResult:
        if isinstance(op, MemoryOpWrite):
            return _write(state.root, op)
        if isinstance(op, MemoryOpRead):
            return _read(state.root, op)
        if isinstance(op, MemoryOpList):
            directory = _files.path_of(state.root, op.uri)
            return MemoryListResult(tuple(_files.entries(state.root, directory, 0)))
        if isinstance(op, MemoryOpTree):
            directory = _files.path_of(state.root, op.uri)
            return MemoryListResult(tuple(_files.entries(state.root, directory, op.depth)))
        if isinstance(op, MemoryOpFind | MemoryOpSearch):
            return _find(state, op.query, op.target_uri, op.top_k)
        if isinstance(op, MemoryOpResource):
            return ingest(state.root, op)
        assert isinstance(op, MemoryOpCommit)
        return commit(state.root, op, state.options)


def _state(store: MemoryStore) -> LocalStoreState:
    state = store.state
    assert isinstance(state, LocalStoreState)
    return state


def _write(root: Path, op: MemoryOpWrite) -> MemoryResult:
    if op.mode not in _WRITE_MODES:
        return MemoryExecutionFailure(
            "unsupported", f"write mode {op.mode!r}: the local backend supports {_WRITE_MODES}"
        )
    base = _files.path_of(root, op.uri)
    if not _files.is_entry(root, base):
        return MemoryExecutionFailure("invalid_uri", f"{op.uri!r} names a scope, not an entry")
    path = base.with_name(base.name + ".md")
    path.parent.mkdir(parents=True, exist_ok=True)
    data = op.content.encode()
    path.write_bytes(data)
    for stale in (path.with_suffix(".vec"), path.with_name(path.name[:-3] + ".meta.json")):
        stale.unlink(missing_ok=True)
    return MemoryWriteResult(uri=op.uri, bytes_written=len(data))


def _read(root: Path, op: MemoryOpRead) -> MemoryResult:
    path = _files.readable(_files.path_of(root, op.uri))
    if path is None:
        return MemoryExecutionFailure("not_found", f"no memory at {op.uri}", op.uri)
    raw = path.read_bytes()
    data: str | bytes = raw if op.encoding is None else raw.decode(op.encoding)
    return MemoryReadResult(uri=op.uri, data=data, level=op.level)


def _find(state: LocalStoreState, query: str, target: str | None, top_k: int) -> MemoryResult:
    roots = [_files.path_of(state.root, target)] if target else [state.root / s for s in SCOPES]
    files = [
        path
        for root in roots
        if root.is_dir()
        for path in sorted(root.rglob("*.md"))
        if not path.name.startswith("source")
    ]
    texts = [path.read_text(errors="replace") for path in files]
    scores = _scores(state, query, files, texts)
    ranked = sorted(zip(scores, files, texts, strict=True), key=lambda item: -item[0])
    hits = tuple(
        MemoryHit(uri=_files.uri_of(state.root, path), score=score, snippet=snippet(text))
        for score, path, text in ranked[:top_k]
        if score > 0
    )
    return MemoryFindResult(hits=hits)


def _scores(state: LocalStoreState, query: str, files: list[Path], texts: list[str]) -> list[float]:
    embed = _embedder(state)
    if embed is not None and files:
        try:
            return cosine_scores(query, files, texts, embed, state.embedding_model)
        except Exception as exc:
            _log.warning("embedding ranking failed, using BM25 for this find: %s", exc)
    return bm25_scores(query, texts)


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
