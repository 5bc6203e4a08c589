"""The small JSON Schema subset the built-in tool schemas use, checked without dependencies.

Supported: ``type`` (a name or a list of names), ``properties``, ``required`` and
``additionalProperties: false`` on the top-level object.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def json_type_name(value: object) -> str:
    """The JSON Schema type name of a decoded JSON value (``bool`` is not a number)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _matches(value: object, expected: str) -> bool:
    actual = json_type_name(value)
    return actual == expected or (expected == "number" and actual == "integer")


def check_object(schema: Mapping[str, Any], arguments: object) -> str | None:
    """Check ``arguments`` against an object schema."""
    if not isinstance(arguments, Mapping):
        return f"arguments must be a JSON object, got {json_type_name(arguments)}"
    properties: Mapping[str, Any] = schema.get("properties", {})
    for name in schema.get("required", ()):
        if name not in arguments:
            return f"missing required argument {name!r}"
    if schema.get("additionalProperties") is False:
        extra = sorted(str(key) for key in arguments if key not in properties)
        if extra:
            allowed = ", ".join(sorted(properties)) or "none"
            return f"unexpected argument {extra[0]!r} (allowed: {allowed})"
    for name, prop in properties.items():
        if name not in arguments or "type" not in prop:
            continue
        expected = prop["type"]
        names = [expected] if isinstance(expected, str) else list(expected)
        value = arguments[name]
        if not any(_matches(value, type_name) for type_name in names):
            return f"argument {name!r} must be {' or '.join(names)}, got {json_type_name(value)}"
    return None
