"""OpenRath's memory URI helpers: ``memory://<scope>/<path>``, ``viking://`` as an alias.

A backend that speaks OpenViking's wire form translates at its boundary with
:func:`to_wire_uri` and :func:`to_public_uri`; everything else sees ``memory://``.
"""

from __future__ import annotations

from rath.memory._uri import SCOPES

__all__ = [
    "LEGACY_MEMORY_URI_PREFIX",
    "MEMORY_URI_PREFIX",
    "MEMORY_URI_ROOT",
    "SCOPES",
    "is_memory_uri",
    "memory_uri_prefix",
    "split_memory_uri",
    "to_public_uri",
    "to_wire_uri",
    "valid_memory_uri",
]

MEMORY_URI_PREFIX = "memory://"
LEGACY_MEMORY_URI_PREFIX = "viking://"
MEMORY_URI_ROOT = "memory:/"
# The root's wire forms: to_wire_uri gives "viking://", OpenRath's gave "viking:/".
_LEGACY_ROOTS = ("viking:/", LEGACY_MEMORY_URI_PREFIX)


def memory_uri_prefix(uri: str) -> str | None:
    """The scheme prefix ``uri`` starts with (``memory://`` or ``viking://``), else ``None``."""
    for prefix in (MEMORY_URI_PREFIX, LEGACY_MEMORY_URI_PREFIX):
        if uri.startswith(prefix):
            return prefix
    return None


def is_memory_uri(uri: str) -> bool:
    """Whether ``uri`` uses a memory scheme (its path is not checked)."""
    return memory_uri_prefix(uri) is not None or uri == MEMORY_URI_ROOT


def split_memory_uri(uri: str) -> tuple[str, list[str]]:
    """``(scope, path segments)`` of a memory URI; ``("", [])`` for the root.

    Raises:
        ValueError: Not a memory URI, an unknown scope, or an empty, ``.`` or ``..`` segment.
    """
    prefix = memory_uri_prefix(uri)
    if prefix is None:
        if uri == MEMORY_URI_ROOT:
            return "", []
        raise ValueError(f"{uri!r} is not a memory URI: write memory://<scope>/<path>")
    rest = uri[len(prefix) :].rstrip("/")
    if not rest:
        return "", []
    scope, *path = rest.split("/")
    if scope not in SCOPES:
        raise ValueError(f"unknown memory scope {scope!r} in {uri!r}: use one of {list(SCOPES)}")
    for segment in path:
        if segment in ("", ".", ".."):
            raise ValueError(f"memory URI {uri!r} has an empty, '.' or '..' segment")
    return scope, path


def valid_memory_uri(uri: str) -> bool:
    """Whether ``uri`` is the root or ``memory://<scope>/...`` with a known scope."""
    try:
        split_memory_uri(uri)
    except ValueError:
        return False
    return True


def to_public_uri(uri: str) -> str:
    """``viking://...`` as ``memory://...``, the wire root as ``memory:/``; others unchanged."""
    if uri in _LEGACY_ROOTS:
        return MEMORY_URI_ROOT
    if uri.startswith(LEGACY_MEMORY_URI_PREFIX):
        return MEMORY_URI_PREFIX + uri[len(LEGACY_MEMORY_URI_PREFIX) :]
    return uri


def to_wire_uri(uri: str) -> str:
    """``memory://...`` (or the root) as OpenViking's ``viking://...``; others unchanged."""
    if uri == MEMORY_URI_ROOT:
        return LEGACY_MEMORY_URI_PREFIX
    if uri.startswith(MEMORY_URI_PREFIX):
        return LEGACY_MEMORY_URI_PREFIX + uri[len(MEMORY_URI_PREFIX) :]
    return uri
