"""TOOL_RESULT bodies: sandbox results and failures rendered as the JSON strings the model reads.

``truncated: true`` is added only when output was cut, so ordinary bodies match OpenRath's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rath.backend.sandboxes import (
    CodeResult,
    CommandResult,
    FileContent,
    FileEntries,
    FileWriteResult,
)

_MAX_MESSAGE_CHARS = 2000
_MAX_DETAIL_CHARS = 4000


def error_body(kind: str, message: str, detail: str | None = None) -> str:
    """A failure body: ``{"ok": false, "error_kind": kind, "message": message[, "detail"]}``.

    Args:
        kind: The failure kind (``unknown_tool``, ``timeout``, ...).
        message: A one-line explanation (clipped to 2000 characters).
        detail: Optional extra context (clipped to 4000 characters).

    Returns:
        The JSON string.
    """
    body: dict[str, Any] = {
        "ok": False,
        "error_kind": kind,
        "message": _clip(message, _MAX_MESSAGE_CHARS),
    }
    if detail is not None:
        body["detail"] = _clip(detail, _MAX_DETAIL_CHARS)
    return dumps(body)


def command_body(result: CommandResult) -> dict[str, Any]:
    """``{"exit_code", "stdout", "stderr", "elapsed_ms"[, "truncated"]}``."""
    body: dict[str, Any] = {
        "exit_code": result.exit_code,
        "stdout": result.stdout,
        "stderr": result.stderr,
        "elapsed_ms": round(result.elapsed_ms, 1),
    }
    return _flag_truncated(body, result.truncated)


def file_body(result: FileContent) -> dict[str, Any]:
    """``{"data"[, "truncated"]}``."""
    return _flag_truncated({"data": result.data}, result.truncated)


def write_body(result: FileWriteResult) -> dict[str, Any]:
    """``{"bytes_written"}``."""
    return {"bytes_written": result.bytes_written}


def entries_body(result: FileEntries) -> dict[str, Any]:
    """``{"entries": [{"name", "path", "is_dir"}, ...][, "truncated"]}``."""
    entries = [
        {"name": entry.name, "path": entry.path, "is_dir": entry.is_dir} for entry in result.entries
    ]
    return _flag_truncated({"entries": entries}, result.truncated)


def code_body(result: CodeResult) -> dict[str, Any]:
    """``{"text": null, "stdout", "stderr", "error"[, "truncated"]}``."""
    body: dict[str, Any] = {
        "text": None,
        "stdout": result.stdout,
        "stderr": result.stderr,
        "error": result.error,
    }
    return _flag_truncated(body, result.truncated)


def _flag_truncated(body: dict[str, Any], truncated: bool) -> dict[str, Any]:
    if truncated:
        body["truncated"] = True
    return body


def dumps(body: Mapping[str, Any]) -> str:
    """Serialise a body (non-ASCII kept as is, as OpenRath does)."""
    return json.dumps(body, ensure_ascii=False)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 15] + "...(truncated)"
