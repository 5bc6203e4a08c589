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
