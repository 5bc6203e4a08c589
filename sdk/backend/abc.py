"""The backend ABC, the sandbox handle and its spec, at OpenRath's module path."""

from __future__ import annotations

from rath.backend._backend import Backend
from rath.backend._handle import BackendSandbox
from rath.backend.spec import BackendSandboxSpec

__all__ = [
    "Backend",
    "BackendSandbox",
    "BackendSandboxSpec",
]
