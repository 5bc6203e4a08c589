"""The ``openviking`` memory backend: stores on an OpenViking server, over its HTTP API.

Installed with ``pip install 'rath[openviking]'`` (the ``openviking-sdk`` client; the server
is ``openviking-server``, run separately). ``open(spec)`` connects to ``options["url"]``
(default ``$OPEN_VIKING_URL`` or ``http://127.0.0.1:1933``) with ``options["api_key"]``
(default ``$OPEN_VIKING_API_KEY``), as account ``spec.account_id`` (``"default"``), user
``spec.user_id`` and agent ``spec.agent_id``. OpenViking 0.5 has no embedded mode, so an
``options["path"]`` store is refused with what to run instead. The key stays in this process.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import uuid
from pathlib import Path
from typing import Any

import httpx

from rath.memory.abc import (
    MemoryBackend,
    MemoryCapabilities,
    MemoryStore,
    MemoryStoreSpec,
    ScopeModel,
)
from rath.memory.adapters._viking_wire import (
    failure_kind,
    hidden,
    public_uri,
    wire_dir,
    wire_file,
)
from rath.memory.errors import MemoryBackendError
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
from rath.memory.registry import register
from rath.memory.results import (
    MemoryCommitResult,
    MemoryEntry,
    MemoryExecutionFailure,
    MemoryFindResult,
    MemoryHit,
    MemoryListResult,
    MemoryReadResult,
    MemoryResult,
    MemoryWriteResult,
)

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

    def _dispatch(self, store: MemoryStore, op: MemoryOp) -> MemoryResult:
        try:
            return _run(store.state, op)
        except ValueError as exc:
            return MemoryExecutionFailure("invalid_uri", str(exc))
        except Exception as exc:
            kind = failure_kind(exc)
            if kind is None:
                raise
            return MemoryExecutionFailure(kind, str(exc), type(exc).__name__)


def _check_reachable(url: str, timeout: float) -> None:
    try:
        response = httpx.get(f"{url.rstrip('/')}/health", timeout=min(timeout, 10.0))
    except httpx.HTTPError as exc:
        raise MemoryBackendError(f"cannot connect to OpenViking at {url}: {exc}") from exc
    if response.is_error:
        raise MemoryBackendError(
            f"cannot connect to OpenViking at {url}: /health answered {response.status_code}"
        )


def _run(client: Any, op: MemoryOp) -> MemoryResult:
    if isinstance(op, MemoryOpWrite):
        done = client.write(wire_file(op.uri), op.content, mode=op.mode, wait=op.wait)
        written = (done or {}).get("written_bytes", len(op.content.encode()))
        return MemoryWriteResult(uri=op.uri, bytes_written=int(written))
    if isinstance(op, MemoryOpRead):
        return _read(client, op)
    if isinstance(op, MemoryOpList):
        return MemoryListResult(_entries(client.ls(wire_dir(op.uri))))
    if isinstance(op, MemoryOpTree):
        return MemoryListResult(_entries(client.tree(wire_dir(op.uri), level_limit=op.depth + 1)))
    if isinstance(op, MemoryOpFind | MemoryOpSearch):
        return _find(client, op)
    if isinstance(op, MemoryOpResource):
        return _ingest(client, op)
    assert isinstance(op, MemoryOpCommit)
    return _commit(client, op)


def _read(client: Any, op: MemoryOpRead) -> MemoryResult:
    if op.level == "detail" or "." in op.uri.rsplit("/", 1)[-1] or _is_file(client, op.uri):
        text = client.read(wire_file(op.uri))
    else:
        reader = client.abstract if op.level == "abstract" else client.overview
        text = reader(wire_dir(op.uri))
    data: str | bytes = text if op.encoding is not None else text.encode()
    return MemoryReadResult(uri=op.uri, data=data, level=op.level)


def _is_file(client: Any, uri: str) -> bool:
    try:
        return not client.stat(wire_file(uri)).get("isDir", False)
    except Exception as exc:
        if failure_kind(exc) == "not_found":
            return False
        raise


def _entries(listed: list[Any]) -> tuple[MemoryEntry, ...]:
    return tuple(
        MemoryEntry(
            name=str(item.get("name", "")).removesuffix(".md"),
            uri=public_uri(str(item["uri"])),
            is_dir=bool(item.get("isDir")),
            size=None if item.get("isDir") else item.get("size"),
        )
        for item in listed
        if isinstance(item, dict) and not hidden(item)
    )


def _find(client: Any, op: MemoryOpFind | MemoryOpSearch) -> MemoryResult:
    target = wire_dir(op.target_uri) if op.target_uri else ""
    # Ask for more: OpenViking's own overview entries are dropped below.
    limit = op.top_k * 3
    if isinstance(op, MemoryOpSearch):
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
        MemoryHit(
            uri=public_uri(str(item["uri"])),
            score=float(item.get("score", 0.0)),
            snippet=item.get("abstract") or item.get("overview"),
            level=_LEVELS.get(item.get("level")),  # type: ignore[arg-type]
        )
        for item in items[: op.top_k]
    )
    return MemoryFindResult(hits=hits)


def _ingest(client: Any, op: MemoryOpResource) -> MemoryResult:
    path = Path(op.source).expanduser()
    if "://" not in op.source and not path.is_file():
        return MemoryExecutionFailure("not_found", f"no file {op.source}", op.source)
    to = wire_dir(op.target_uri) if op.target_uri else None
    done = client.add_resource(op.source, to=to, wait=op.wait) or {}
    root = str(done.get("root_uri") or done.get("uri") or to or "viking://resources")
    size = path.stat().st_size if path.is_file() else 0
    return MemoryWriteResult(uri=public_uri(root), bytes_written=size)


def _commit(client: Any, op: MemoryOpCommit) -> MemoryResult:
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
    return MemoryCommitResult(
        task_id=task_id,
        archived_uri=public_uri(str(done["archive_uri"])) if done.get("archive_uri") else None,
        extracted_count=extracted,
    )
