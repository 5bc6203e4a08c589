"""Tool-call arguments: OpenRath's parser (exact results) and the durable loop's own."""

from __future__ import annotations

import json
from typing import Any


def parse_tool_arguments(arg_str: str | None) -> tuple[dict[str, Any] | None, bool]:
    """Parse a tool call's arguments as OpenRath did.

    Returns:
        ``(object, False)`` for a JSON object, ``(None, False)`` for ``None`` or an empty
        string, and ``(None, True)`` for invalid JSON (a blank string among it) or JSON that
        is not an object.
    """
    if not arg_str:
        return None, False
    try:
        value = json.loads(arg_str)
    except (json.JSONDecodeError, TypeError):
        return None, True
    return (value, False) if isinstance(value, dict) else (None, True)


def parse_arguments(raw: str) -> tuple[dict[str, Any] | None, str | None]:
    """Parse tool-call arguments: ``(object, None)`` or ``(None, reason)``.

    An empty string means "no arguments" (``{}``): OpenRath rejected it, which broke tools
    that take none.
    """
    if not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, f"arguments are not valid JSON: {exc.msg} at position {exc.pos}"
    if not isinstance(value, dict):
        return None, f"arguments must be a JSON object, got {type(value).__name__}"
    return value, None
