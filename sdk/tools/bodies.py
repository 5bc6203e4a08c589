"""TOOL_RESULT bodies: sandbox results and failures rendered as the JSON strings the model reads.

``truncated: true`` is added only when output was cut, so ordinary bodies match OpenRath's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from rath.backend.results import (
    CodeResult,
    CommandResult,
    FileContent,
    FileEntries,
    FileWriteResult,
    ToolExecutionFailure,
    ToolResult,
)
from rath.utils import decode_subprocess_output

_MAX_MESSAGE_CHARS = 2000
_MAX_DETAIL_CHARS = 4000


def error_body(kind: str, message: str, detail: str | None = None) -> str:
    """A failure body: ``{"ok": false, "error_kind": kind, "message": message[, "detail"]}``."""
    body: dict[str, Any] = {
        "ok": False,
        "error_kind": kind,
        "message": _clip(message, _MAX_MESSAGE_CHARS),
    }
    if detail is not None:
        body["detail"] = _clip(detail, _MAX_DETAIL_CHARS)
    return dumps(body)


def exception_body(exc: BaseException) -> str:
    """The body of a tool call that raised ``exc`` unexpectedly: ``tool_execution_exception``."""
    kind = type(exc).__name__
    return error_body("tool_execution_exception", f"{kind}: {exc}", kind)


def dumps(body: Mapping[str, Any]) -> str:
    """Serialise a body (non-ASCII kept as is, as OpenRath does)."""
    return json.dumps(body, ensure_ascii=False)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 15] + "...(truncated)"


MAX_BODY_CHARS = 64 * 1024


def result_body(value: Any) -> str:
    r"""A tool's return value as the transcript carries it: OpenRath's JSON rendering.

    A backend failure (``ToolExecutionFailure``) is the error body
    ``{"ok": false, "error_kind", "message"[, "detail"]}``; a ``bool`` is ``{"ok": ...}``;
    a backend ``ToolResult`` is the built-in tools' body (see :func:`backend_result_body`).
    Pydantic models are dumped; anything else goes through ``json.dumps`` (non-JSON values as
    their ``str``), so ``42`` is ``42`` and ``"ok"`` is ``"\"ok\""``; a value that still
    cannot be written is ``{"repr": ..., "type": ...}``. Past :data:`MAX_BODY_CHARS` the text
    is cut.
    """
    if isinstance(value, ToolExecutionFailure):
        return error_body(value.kind, value.message, value.detail or None)
    if isinstance(value, bool):
        return dumps({"ok": value})
    if isinstance(value, ToolResult):
        body = dumps(backend_result_body(value))
    else:
        if isinstance(value, BaseModel):
            value = value.model_dump(mode="json")
        try:
            body = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):  # circular, or NaN handling refused
            body = dumps({"repr": repr(value)[:MAX_BODY_CHARS], "type": type(value).__name__})
    if len(body) > MAX_BODY_CHARS:
        body = body[:MAX_BODY_CHARS] + "...(truncated)"
    return body


MAX_FILE_CHARS = 12_000
"""OpenRath's cut of a ``FileContent`` body's text."""
MAX_ENTRIES = 500
"""OpenRath's cut of a ``FileEntries`` body's list."""


def backend_result_body(result: ToolResult, *, durable: bool = False) -> dict[str, Any]:
    """A :mod:`rath.backend` result as OpenRath's tool body (output bytes decoded).

    ``CommandResult``: ``{"exit_code", "stdout", "stderr", "elapsed_ms"}``; ``FileContent``:
    ``{"data"}`` (cut at 12,000 characters); ``FileEntries``: ``{"entries": [{"name", "path",
    "is_dir"}, ...]}`` (the first 500); ``FileWriteResult``: ``{"bytes_written"}``;
    ``CodeResult``: ``{"text", "stdout", "stderr", "error"}``; another result:
    ``{"type", "note": "unserialised result"}``.

    ``durable=True`` gives the built-in tools' durable bodies: the sandbox already capped the
    output, so nothing is cut here; ``elapsed_ms`` is rounded to 0.1, ``text`` is null, and
    ``"truncated": true`` is added when the sandbox cut the output.
    """
    body: dict[str, Any]
    if isinstance(result, CommandResult):
        elapsed = round(result.elapsed_ms, 1) if durable else result.elapsed_ms
        body = {
            "exit_code": result.exit_code,
            "stdout": _text(result.stdout),
            "stderr": _text(result.stderr),
            "elapsed_ms": elapsed,
        }
    elif isinstance(result, FileContent):
        text = _text(result.data)
        cut = len(text) > MAX_FILE_CHARS and not durable
        body = {"data": text[:MAX_FILE_CHARS] + "...(truncated)" if cut else text}
    elif isinstance(result, FileEntries):
        entries = result.entries if durable else result.entries[:MAX_ENTRIES]
        body = {"entries": [{"name": e.name, "path": e.path, "is_dir": e.is_dir} for e in entries]}
    elif isinstance(result, FileWriteResult):
        return {"bytes_written": result.bytes_written}
    elif isinstance(result, CodeResult):
        body = {
            "text": None if durable else result.text,
            "stdout": _text(result.stdout),
            "stderr": _text(result.stderr),
            "error": result.error,
        }
    else:
        return {"type": type(result).__name__, "note": "unserialised result"}
    if durable and result.truncated:
        body["truncated"] = True
    return body


def _text(data: bytes | str) -> str:
    return decode_subprocess_output(data) if isinstance(data, bytes) else str(data)
