"""Rath's sandboxes: where the built-in tools run commands, code and file operations.

``open_sandbox(spec)``, the backends, and ``SandboxUnavailableError``: docs/sandboxes.md.
"""

from rath.backend.sandboxes._base import SandboxBackend, ToolFailure
from rath.backend.sandboxes._process import check_command
from rath.backend.sandboxes._registry import (
    SandboxUnavailableError,
    available_backends,
    check_backend_name,
    open_sandbox,
    register_backend,
    registered_backends,
)
from rath.backend.sandboxes.bwrap import BwrapSandbox
from rath.backend.sandboxes.docker import DockerSandbox
from rath.backend.sandboxes.local import LocalSandbox
from rath.backend.sandboxes.opensandbox import OpenSandboxSandbox

for _backend in (LocalSandbox, BwrapSandbox, DockerSandbox, OpenSandboxSandbox):
    register_backend(_backend.name, _backend)

__all__ = [
    "BwrapSandbox",
    "DockerSandbox",
    "LocalSandbox",
    "OpenSandboxSandbox",
    "SandboxBackend",
    "SandboxUnavailableError",
    "ToolFailure",
    "available_backends",
    "check_backend_name",
    "check_command",
    "open_sandbox",
    "register_backend",
    "registered_backends",
]
