"""OpenRath's tool-argument parser, with its exact results.

Rath's loop parses arguments itself (an empty string there means ``{}``); this is the public
helper OpenRath code calls.
"""

from __future__ import annotations

import json
from typing import Any


def parse_tool_arguments(arg_str: str | None) -> tuple[dict[str, Any] | None, bool]:
    """Parse a tool call's arguments as OpenRath did.

    Returns:
        ``(object, False)`` for a JSON object, ``(None, False)`` for an empty string, and
        ``(None, True)`` for invalid JSON or JSON that is not an object.
    """
    if arg_str is None or not arg_str.strip():
        return None, False
    try:
        value = json.loads(arg_str)
    except (json.JSONDecodeError, TypeError):
        return None, True
    return (value, False) if isinstance(value, dict) else (None, True)
