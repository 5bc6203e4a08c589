"""What dispatched payloads return, at OpenRath's module path."""

from __future__ import annotations

from rath.backend._types import (
    CodeResult,
    CommandResult,
    FileContent,
    FileEntries,
    FileEntry,
    FileWriteResult,
    ToolExecutionFailure,
    ToolResult,
    tool_failure_from,
)

__all__ = [
    "CodeResult",
    "CommandResult",
    "FileContent",
    "FileEntries",
    "FileEntry",
    "FileWriteResult",
    "ToolExecutionFailure",
    "ToolResult",
    "tool_failure_from",
]
