"""``OpenSandboxBackend``, at OpenRath's module path (see :mod:`rath.backend.local`)."""

from __future__ import annotations

from rath.backend.local import OpenSandboxBackend

__all__ = [
    "OpenSandboxBackend",
]
