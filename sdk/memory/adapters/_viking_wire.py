"""OpenViking's side of the boundary: its URIs and its error codes, in the plane's terms.

``memory://user/<path>`` is ``viking://~/<path>`` (the connected user's space), other scopes
keep their names, and an entry without an extension is stored as ``<name>.md`` (OpenViking
creates only files with an extension). Back from the wire, ``viking://user/<id>/...`` loses
the user id and ``.md`` goes again. Entries whose name starts with ``.`` (OpenViking's own
``.overview.md`` and ``.abstract.md``) are hidden.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from rath.memory.uri import (
    LEGACY_MEMORY_URI_PREFIX,
    MEMORY_URI_PREFIX,
    split_memory_uri,
)

__all__ = ["failure_kind", "hidden", "public_uri", "wire_dir", "wire_file"]

_KINDS = {
    "NOT_FOUND": "not_found",
    "INVALID_URI": "invalid_uri",
    "INVALID_ARGUMENT": "invalid_uri",
    "FAILED_PRECONDITION": "invalid_uri",
    "PERMISSION_DENIED": "unauthorized",
    "UNAUTHENTICATED": "unauthorized",
    "UNIMPLEMENTED": "unsupported",
    "NOT_INITIALIZED": "unsupported",
    "DEADLINE_EXCEEDED": "timeout",
    "UNAVAILABLE": "transport",
    "ABORTED": "transport",
    "RESOURCE_EXHAUSTED": "transport",
    "PROCESSING_ERROR": "extraction_failed",
    "EMBEDDING_FAILED": "extraction_failed",
    "VLM_FAILED": "extraction_failed",
    "SESSION_EXPIRED": "store_closed",
}


def wire_dir(uri: str) -> str:
    """The wire form of a directory (or scope) URI.

    Raises:
        ValueError: Not a valid memory URI.
    """
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
