"""The ``openviking`` memory backend: stores on an OpenViking server, over its HTTP API.

Install, options and the wire mapping: docs/memory.md, "The memory plane". The key stays here.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx

from rath.memory import op_types as ops
from rath.memory import results as res
from rath.memory.abc import MemoryBackend, MemoryStore, MemoryStoreSpec
from rath.memory.capabilities import MemoryCapabilities, ScopeModel
from rath.memory.errors import MemoryBackendError
from rath.memory.registry import register
from rath.memory.uri import LEGACY_MEMORY_URI_PREFIX, MEMORY_URI_PREFIX, split_memory_uri

__all__ = ["DEFAULT_URL", "OpenVikingBackend"]

DEFAULT_URL = "http://127.0.0.1:1933"
_SDK = "openviking_sdk"
_LEVELS = {0: "abstract", 1: "overview", 2: "detail"}


@register("openviking")
class OpenVikingBackend(MemoryBackend):
    """Memory on an OpenViking server (see the module docstring)."""

    @classmethod
    def unavailable_reason(cls) -> str | None:
        """Set when the client is missing: ``pip install 'rath[openviking]'``."""
        if importlib.util.find_spec(_SDK) is None:
            return "the OpenViking client is not installed (pip install 'rath[openviking]')"
        return None

    @classmethod
    def capabilities(cls) -> MemoryCapabilities:
        """Everything: files, vector and intent search, resources, commits, three levels."""
        return MemoryCapabilities(
            scope_model=ScopeModel.HYBRID,
            supports_vector_search=True,
            supports_intent_search=True,
            supports_resource_ingest=True,
            supports_session_commit=True,
            supports_l0_l1_l2=True,
        )

    def _open(self, spec: MemoryStoreSpec | None) -> tuple[str, Any]:
        reason = self.unavailable_reason()
        if reason is not None:
            raise MemoryBackendError(f"memory backend 'openviking': {reason}", retryable=False)
        options = dict((spec.options if spec else None) or {})
        if options.get("path") and not options.get("url"):
            raise MemoryBackendError(
                "OpenViking 0.5 has no embedded mode: run `openviking-server --config ov.conf` "
                "and open the store with options={'url': 'http://127.0.0.1:1933', ...}",
                retryable=False,
            )
        url = str(options.get("url") or os.environ.get("OPEN_VIKING_URL") or DEFAULT_URL)
        timeout = float(options.get("timeout", 60))
        _check_reachable(url, timeout)
        sdk = importlib.import_module(_SDK)
        client = sdk.SyncHTTPClient(
            url=url,
            api_key=options.get("api_key") or os.environ.get("OPEN_VIKING_API_KEY"),
            account=(spec.account_id if spec else None) or "default",
            user_id=spec.user_id if spec else None,
            agent_id=spec.agent_id if spec else None,
            timeout=timeout,
        )
        client.initialize()
        return uuid.uuid4().hex, client

    def _close(self, store: MemoryStore) -> None:
        store.state.close()

    def forget(self, store: MemoryStore, uri: str) -> bool:
        """Delete the entry at ``uri``; ``False`` when there was none."""
        try:
            store.state.rm(wire_file(uri))
        except Exception as exc:
            if failure_kind(exc) == "not_found":
                return False
            raise MemoryBackendError(f"OpenViking could not delete {uri}: {exc}") from exc
        return True

    def _dispatch(self, store: MemoryStore, op: ops.MemoryOp) -> res.MemoryResult:
        try:
            return _run(store.state, op)
        except ValueError as exc:
            return res.MemoryExecutionFailure("invalid_uri", str(exc))
        except Exception as exc:
            kind = failure_kind(exc)
            if kind is None:
                raise
            return res.MemoryExecutionFailure(kind, str(exc), type(exc).__name__)


def _check_reachable(url: str, timeout: float) -> None:
    try:
        response = httpx.get(f"{url.rstrip('/')}/health", timeout=min(timeout, 10.0))
    except httpx.HTTPError as exc:
        raise MemoryBackendError(f"cannot connect to OpenViking at {url}: {exc}") from exc
    if response.is_error:
        raise MemoryBackendError(
            f"cannot connect to OpenViking at {url}: /health answered {response.status_code}"
        )


def _run(client: Any, op: ops.MemoryOp) -> res.MemoryResult:
    if isinstance(op, ops.MemoryOpWrite):
        done = client.write(wire_file(op.uri), op.content, mode=op.mode, wait=op.wait)
        written = (done or {}).get("written_bytes", len(op.content.encode()))
        return res.MemoryWriteResult(uri=op.uri, bytes_written=int(written))
    if isinstance(op, ops.MemoryOpRead):
        return _read(client, op)
    if isinstance(op, ops.MemoryOpList):
        return res.MemoryListResult(_entries(client.ls(wire_dir(op.uri))))
    if isinstance(op, ops.MemoryOpTree):
        return res.MemoryListResult(
            _entries(client.tree(wire_dir(op.uri), level_limit=op.depth + 1))
        )
    if isinstance(op, ops.MemoryOpFind | ops.MemoryOpSearch):
        return _find(client, op)
    if isinstance(op, ops.MemoryOpResource):
        return _ingest(client, op)
    assert isinstance(op, ops.MemoryOpCommit)
    return _commit(client, op)


def _read(client: Any, op: ops.MemoryOpRead) -> res.MemoryResult:
    if op.level == "detail" or "." in op.uri.rsplit("/", 1)[-1] or _is_file(client, op.uri):
        text = client.read(wire_file(op.uri))
    else:
        reader = client.abstract if op.level == "abstract" else client.overview
        text = reader(wire_dir(op.uri))
    data: str | bytes = text if op.encoding is not None else text.encode()
    return res.MemoryReadResult(uri=op.uri, data=data, level=op.level)


def _is_file(client: Any, uri: str) -> bool:
    try:
        return not client.stat(wire_file(uri)).get("isDir", False)
    except Exception as exc:
        if failure_kind(exc) == "not_found":
            return False
        raise


def _entries(listed: list[Any]) -> tuple[res.MemoryEntry, ...]:
    return tuple(
        res.MemoryEntry(
            name=str(item.get("name", "")).removesuffix(".md"),
            uri=public_uri(str(item["uri"])),
            is_dir=bool(item.get("isDir")),
            size=None if item.get("isDir") else item.get("size"),
        )
        for item in listed
        if isinstance(item, dict) and not hidden(item)
    )


def _find(client: Any, op: ops.MemoryOpFind | ops.MemoryOpSearch) -> res.MemoryResult:
    target = wire_dir(op.target_uri) if op.target_uri else ""
    # Ask for more: OpenViking's own overview entries are dropped below.
    limit = op.top_k * 3
    if isinstance(op, ops.MemoryOpSearch):
        found = client.search(op.query, session_id=op.session_id, target_uri=target, limit=limit)
    else:
        found = client.find(op.query, target_uri=target, limit=limit)
    items = [
        item
        for group in ("memories", "resources", "skills")
        for item in (found or {}).get(group, [])
        if isinstance(item, dict) and not hidden(item)
    ]
    items.sort(key=lambda item: -float(item.get("score", 0.0)))
    hits = tuple(
        res.MemoryHit(
            uri=public_uri(str(item["uri"])),
            score=float(item.get("score", 0.0)),
            snippet=item.get("abstract") or item.get("overview"),
            level=_LEVELS.get(item.get("level")),  # type: ignore[arg-type]
        )
        for item in items[: op.top_k]
    )
    return res.MemoryFindResult(hits=hits)


def _ingest(client: Any, op: ops.MemoryOpResource) -> res.MemoryResult:
    path = Path(op.source).expanduser()
    if "://" not in op.source and not path.is_file():
        return res.MemoryExecutionFailure("not_found", f"no file {op.source}", op.source)
    to = wire_dir(op.target_uri) if op.target_uri else None
    done = client.add_resource(op.source, to=to, wait=op.wait) or {}
    root = str(done.get("root_uri") or done.get("uri") or to or "viking://resources")
    size = path.stat().st_size if path.is_file() else 0
    return res.MemoryWriteResult(uri=public_uri(root), bytes_written=size)


def _commit(client: Any, op: ops.MemoryOpCommit) -> res.MemoryResult:
    try:
        client.create_session(op.session_id)
    except Exception as exc:
        if failure_kind(exc) is None:
            raise
    for message in op.messages:
        client.add_message(op.session_id, str(message.get("role")), message.get("content") or "")
    done = client.commit_session(op.session_id) or {}
    task_id = done.get("task_id")
    extracted = -1
    if op.wait and task_id:
        client.wait_processed()
        task = client.get_task(task_id) or {}
        counts = (task.get("result") or {}).get("memories_extracted") or {}
        extracted = sum(int(v) for v in counts.values()) if isinstance(counts, dict) else -1
    return res.MemoryCommitResult(
        task_id=task_id,
        archived_uri=public_uri(str(done["archive_uri"])) if done.get("archive_uri") else None,
        extracted_count=extracted,
    )


# OpenViking's side of the boundary: its URIs and error codes in the plane's terms.
_KINDS = {
    code: kind
    for kind, codes in {
        "not_found": "NOT_FOUND",
        "invalid_uri": "INVALID_URI INVALID_ARGUMENT FAILED_PRECONDITION",
        "unauthorized": "PERMISSION_DENIED UNAUTHENTICATED",
        "unsupported": "UNIMPLEMENTED NOT_INITIALIZED",
        "timeout": "DEADLINE_EXCEEDED",
        "transport": "UNAVAILABLE ABORTED RESOURCE_EXHAUSTED",
        "extraction_failed": "PROCESSING_ERROR EMBEDDING_FAILED VLM_FAILED",
        "store_closed": "SESSION_EXPIRED",
    }.items()
    for code in codes.split()
}


def wire_dir(uri: str) -> str:
    """The wire form of a directory (or scope) URI (``ValueError``: not a memory URI)."""
    scope, segments = split_memory_uri(uri)
    head = "~" if scope == "user" else scope
    return LEGACY_MEMORY_URI_PREFIX + "/".join([head, *segments]) if scope else "viking://"


def wire_file(uri: str) -> str:
    """The wire form of an entry: ``.md`` added when its name has no extension."""
    wire = wire_dir(uri)
    return wire if "." in wire.rsplit("/", 1)[-1] else wire + ".md"


def public_uri(wire: str) -> str:
    """``viking://...`` as the plane's ``memory://...``."""
    rest = wire.removeprefix(LEGACY_MEMORY_URI_PREFIX)
    parts = rest.split("/")
    if parts[0] == "~":
        parts = ["user", *parts[1:]]
    elif parts[0] == "user" and len(parts) > 1:
        parts = ["user", *parts[2:]]
    uri = MEMORY_URI_PREFIX + "/".join(parts)
    return uri.removesuffix(".md")


def hidden(entry: Mapping[str, Any]) -> bool:
    """Whether a listed or found entry is OpenViking's own (``.overview.md``...)."""
    uri = str(entry.get("uri", ""))
    return str(entry.get("name") or uri.rsplit("/", 1)[-1]).startswith(".")


def failure_kind(exc: BaseException) -> str | None:
    """The failure kind of an SDK or transport error; ``None`` for a bug of ours."""
    code = getattr(exc, "code", None)
    if isinstance(code, str) and type(exc).__module__.startswith("openviking"):
        return _KINDS.get(code, "internal")
    if isinstance(exc, httpx.TimeoutException | TimeoutError):
        return "timeout"
    if isinstance(exc, httpx.TransportError | ConnectionError):
        return "transport"
    return None
