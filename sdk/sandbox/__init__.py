"""Sandboxes: where the built-in tools run commands, code and file operations.

Open one with :func:`open_sandbox` from a :class:`SandboxSpec`; ``"local"`` (a host directory)
is always available, and other backends add themselves with :func:`register_backend`.
"""

from rath.sandbox._base import Capabilities, SandboxBackend, SandboxSpec, ToolFailure
from rath.sandbox._registry import available_backends, open_sandbox, register_backend
from rath.sandbox._results import (
    CodeResult,
    CommandResult,
    FileContent,
    FileEntries,
    FileEntry,
    FileWriteResult,
)
from rath.sandbox.local import LocalSandbox

__all__ = [
    "Capabilities",
    "CodeResult",
    "CommandResult",
    "FileContent",
    "FileEntries",
    "FileEntry",
    "FileWriteResult",
    "LocalSandbox",
    "SandboxBackend",
    "SandboxSpec",
    "ToolFailure",
    "available_backends",
    "open_sandbox",
    "register_backend",
]
