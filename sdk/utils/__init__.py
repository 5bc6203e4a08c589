"""OpenRath's small utilities: decoding a program's output, the project root, test settings."""

from __future__ import annotations

import locale
import os
import sys
from pathlib import Path

__all__ = ["decode_subprocess_output", "project_root_with_pyproject"]

_TEST_SETTINGS = ("TEST_BASE_URL", "TEST_API_KEY", "TEST_MODEL")


def decode_subprocess_output(data: bytes) -> str:
    """Text from a program's output bytes: UTF-8 if valid, else the locale's encoding."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode(locale.getpreferredencoding(False), errors="replace")
    except LookupError:
        pass
    if sys.platform == "win32":
        try:
            return data.decode("mbcs", errors="replace")
        except LookupError:
            pass
    return data.decode("latin-1")


def project_root_with_pyproject(start: Path | None = None) -> Path:
    """The nearest directory at or above ``start`` that holds a ``pyproject.toml``.

    Raises:
        FileNotFoundError: No directory up to the root holds one.
    """
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "pyproject.toml").is_file():
            return folder
    raise FileNotFoundError(f"no pyproject.toml in {here} or any directory above it")


def __getattr__(name: str) -> str | None:
    """``TEST_BASE_URL``, ``TEST_API_KEY`` and ``TEST_MODEL``, read on each access."""
    if name in _TEST_SETTINGS:
        return os.environ.get(name) or None
    raise AttributeError(f"module 'rath.utils' has no attribute {name!r}")
