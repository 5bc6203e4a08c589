"""Memory URIs: parsing, formatting and the errors for malformed ones."""

from __future__ import annotations

import pytest

from rath.errors import UserError
from rath.memory import MemoryURI, MemoryURIError, format_memory_uri, parse_memory_uri
from rath.memory.errors import InvalidMemoryError


def test_round_trip() -> None:
    uri = parse_memory_uri("memory://user/memories/preferences/3f9a0c1d2e4b5a69")
    assert uri == MemoryURI(scope="user", category="preferences", id="3f9a0c1d2e4b5a69")
    assert str(uri) == "memory://user/memories/preferences/3f9a0c1d2e4b5a69"
    assert format_memory_uri("agent", "facts", "a1") == "memory://agent/memories/facts/a1"


def test_legacy_viking_scheme_is_read_as_memory() -> None:
    uri = parse_memory_uri("viking://session/memories/notes/x_1")
    assert str(uri) == "memory://session/memories/notes/x_1"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("http://user/memories/preferences/x", "must start with 'memory://'"),
        ("memory://user/preferences/x", "is not of the form"),
        ("memory://user/memories/preferences", "is not of the form"),
        ("memory://user/memories/preferences/x/y", "is not of the form"),
        ("memory://user/notes/preferences/x", "is not of the form"),
        ("memory://nobody/memories/preferences/x", "unknown memory scope 'nobody'"),
        ("memory://user/memories/../x", "invalid memory category '..'"),
        ("memory://user/memories/prefs/", "invalid memory id ''"),
        ("memory://user/memories/pr efs/x", "must not contain"),
        ("memory://user/memories/prefs/x?y=1", "must not contain"),
        ("memory://user/memories/prefs/x#top", "must not contain"),
        ("memory://user/memories/" + "c" * 65 + "/x", "invalid memory category"),
    ],
)
def test_malformed_uris_say_what_is_wrong(text: str, fragment: str) -> None:
    with pytest.raises(MemoryURIError) as caught:
        parse_memory_uri(text)
    assert fragment in str(caught.value)
    assert text[:20] in str(caught.value)


def test_uri_errors_are_user_errors() -> None:
    assert issubclass(MemoryURIError, InvalidMemoryError)
    assert issubclass(InvalidMemoryError, UserError)
    with pytest.raises(MemoryURIError, match="must be a string"):
        parse_memory_uri(42)  # type: ignore[arg-type]


def test_format_checks_every_part() -> None:
    with pytest.raises(InvalidMemoryError, match="scope"):
        format_memory_uri("users", "facts", "x")
    with pytest.raises(InvalidMemoryError, match="category"):
        format_memory_uri("user", "a/b", "x")
    with pytest.raises(InvalidMemoryError, match="id"):
        format_memory_uri("user", "facts", ".hidden")
