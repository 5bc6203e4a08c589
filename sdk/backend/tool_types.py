"""The payloads a sandbox dispatches, at OpenRath's module path."""

from __future__ import annotations

from rath.backend._types import (
    BackendTool,
    BackendToolCodeRun,
    BackendToolCommandRun,
    BackendToolFilesExists,
    BackendToolFilesList,
    BackendToolFilesRead,
    BackendToolFilesWrite,
)

__all__ = [
    "BackendTool",
    "BackendToolCodeRun",
    "BackendToolCommandRun",
    "BackendToolFilesExists",
    "BackendToolFilesList",
    "BackendToolFilesRead",
    "BackendToolFilesWrite",
]
