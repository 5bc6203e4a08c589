"""Memory URIs: ``memory://<scope>/memories/<category>/<id>``, and OpenRath's URI helpers.

``viking://`` is accepted as an alias and written back as ``memory://`` (docs/memory.md, "Model").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rath.memory.errors import InvalidMemoryError, MemoryURIError

MEMORY_URI_PREFIX = "memory://"
LEGACY_MEMORY_URI_PREFIX = "viking://"
MEMORY_URI_ROOT = "memory:/"
SCOPES = ("user", "agent", "session", "resources")
# The root's wire forms: to_wire_uri gives "viking://", OpenRath's gave "viking:/".
_LEGACY_ROOTS = ("viking:/", LEGACY_MEMORY_URI_PREFIX)
_MEMORIES = "memories"
_SEGMENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
_SHAPE = "memory://<scope>/memories/<category>/<id>"


@dataclass(frozen=True, slots=True)
class MemoryURI:
    """A parsed memory URI (a scope of :data:`SCOPES`, a category, an id); ``str()`` formats it."""

    scope: str
    category: str
    id: str

    def __post_init__(self) -> None:
        check_scope(self.scope)
        check_segment("category", self.category)
        check_segment("id", self.id)

    def __str__(self) -> str:
        return f"{MEMORY_URI_PREFIX}{self.scope}/{_MEMORIES}/{self.category}/{self.id}"

    @classmethod
    def parse(cls, uri: str) -> MemoryURI:
        """Parse ``uri`` (``MemoryURIError`` naming the part that is wrong)."""
        if not isinstance(uri, str):
            raise MemoryURIError(f"a memory URI must be a string, got {type(uri).__name__}")
        prefix = memory_uri_prefix(uri)
        if prefix is None:
            raise MemoryURIError(f"memory URI {uri!r} must start with {MEMORY_URI_PREFIX!r}")
        rest = uri[len(prefix) :]
        if any(char in rest for char in "?#") or any(char.isspace() for char in rest):
            raise MemoryURIError(
                f"memory URI {uri!r} must not contain '?', '#' or whitespace; expected {_SHAPE}"
            )
        parts = rest.split("/")
        if len(parts) != 4 or parts[1] != _MEMORIES:
            raise MemoryURIError(f"memory URI {uri!r} is not of the form {_SHAPE}")
        try:
            return cls(scope=parts[0], category=parts[2], id=parts[3])
        except InvalidMemoryError as exc:
            raise MemoryURIError(f"memory URI {uri!r}: {exc}") from None


def check_scope(scope: str) -> str:
    """``scope``, if it is one of :data:`SCOPES` (else ``InvalidMemoryError``)."""
    if scope not in SCOPES:
        raise InvalidMemoryError(
            f"unknown memory scope {scope!r}; expected one of {', '.join(SCOPES)}"
        )
    return scope


def check_segment(kind: str, value: str) -> str:
    """``value``, if it is a valid ``kind`` (category, id, store name: 1-64 ``[A-Za-z0-9_.-]``)."""
    if not isinstance(value, str) or not _SEGMENT.fullmatch(value):
        raise InvalidMemoryError(
            f"invalid memory {kind} {value!r}: use 1-64 letters, digits, '_', '-' or '.' "
            "(not starting with '.' or '-')"
        )
    return value


def parse_memory_uri(uri: str) -> MemoryURI:
    """Parse a memory URI; the same as :meth:`MemoryURI.parse`."""
    return MemoryURI.parse(uri)


def format_memory_uri(scope: str, category: str, memory_id: str) -> str:
    """``memory://<scope>/memories/<category>/<memory_id>``, every part checked."""
    return str(MemoryURI(scope=scope, category=category, id=memory_id))


def parse_memory_prefix(target: str) -> tuple[str, str | None]:
    """The (scope, category) a recall target names (``MemoryURIError`` for another shape).

    ``user``, ``memory://user``, ``memory://user/memories/`` or ``.../memories/<category>/``.
    """
    if not isinstance(target, str):
        raise MemoryURIError(f"a recall target must be a string, got {type(target).__name__}")
    rest = target[len(memory_uri_prefix(target) or "") :]
    parts = rest.rstrip("/").split("/")
    shape_ok = len(parts) == 1 or (parts[1] == _MEMORIES and len(parts) <= 3)
    if not shape_ok or (rest != target and rest == "") or (rest == target and len(parts) > 1):
        raise MemoryURIError(
            f"recall target {target!r} is not a scope or a prefix such as "
            "'memory://user/memories/' or 'memory://user/memories/preferences/'"
        )
    try:
        scope = check_scope(parts[0])
        category = check_segment("category", parts[2]) if len(parts) == 3 else None
    except InvalidMemoryError as exc:
        raise MemoryURIError(f"recall target {target!r}: {exc}") from None
    return scope, category


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
    """``(scope, path segments)`` of a URI, ``("", [])`` for the root (else ``ValueError``)."""
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
