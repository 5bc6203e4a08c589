"""Open sandbox handles for sessions (OpenRath's ``require_sandbox``), behind one hook.

A session is a value: its placement names a sandbox that opens on the worker running its
tools. OpenRath code also holds a handle of the backend plane on it. Sessions cannot import
the plane (it sits on a higher floor), so ``rath.session`` installs the opener at import
(:mod:`rath.session._plane_handles`) and sessions call :func:`open_handle`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rath.errors import ConfigError
from rath.session.placement import Placement

__all__ = ["NO_SANDBOX", "open_handle", "set_handle_opener"]

NO_SANDBOX = (
    'session has no sandbox backend; call session.to("local") (or another backend) before '
    "using workspace tools"
)

Opener = Callable[[Placement], Any]
_opener: list[Opener] = []


def set_handle_opener(opener: Opener) -> None:
    """Install what opens a placement's handle (``rath.session`` does, at import)."""
    _opener[:] = [opener]


def open_handle(placement: Placement) -> Any:
    """A new backend-plane handle (reference count 0) on ``placement``'s sandbox."""
    if not _opener:
        raise ConfigError("no sandbox handle opener is installed: import rath.session first")
    return _opener[0](placement)
