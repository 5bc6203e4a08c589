"""The backend plane's errors, at OpenRath's module path."""

from __future__ import annotations

from rath.backend._errors import (
    BackendError,
    BackendNotFound,
    BackendSandboxClosed,
    UnsupportedBackendTool,
)

__all__ = [
    "BackendError",
    "BackendNotFound",
    "BackendSandboxClosed",
    "UnsupportedBackendTool",
]
