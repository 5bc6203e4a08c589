"""Sandboxes: where the built-in tools run commands, code and file operations.

Open one with :func:`open_sandbox` from a :class:`rath.backend.BackendSandboxSpec`, or place a
session with ``session.to(name, spec=...)``. Three backends are built in, from weakest to strongest
isolation: ``"local"`` (a host directory, always usable), ``"bwrap"`` (bubblewrap namespaces)
and ``"docker"`` (a container per sandbox); :func:`available_backends` says which can run
here, and other backends add themselves with :func:`register_backend`. A name that is not
registered, or a backend that cannot run on the worker, raises
:class:`SandboxUnavailableError` (a non-retryable ``ConfigError``) listing the ones available.
"""

from rath.backend.sandboxes._base import Capabilities, SandboxBackend, ToolFailure
from rath.backend.sandboxes._process import check_command
from rath.backend.sandboxes._registry import (
    SandboxUnavailableError,
    available_backends,
    check_backend_name,
    open_sandbox,
    register_backend,
    registered_backends,
)
from rath.backend.sandboxes._results import (
    CodeResult,
    CommandResult,
    FileContent,
    FileEntries,
    FileEntry,
    FileWriteResult,
)
from rath.backend.sandboxes.bwrap import BwrapSandbox
from rath.backend.sandboxes.docker import DockerSandbox
from rath.backend.sandboxes.local import LocalSandbox
from rath.backend.sandboxes.opensandbox import OpenSandboxSandbox

for _backend in (LocalSandbox, BwrapSandbox, DockerSandbox, OpenSandboxSandbox):
    register_backend(_backend.name, _backend)

__all__ = [
    "BwrapSandbox",
    "Capabilities",
    "CodeResult",
    "CommandResult",
    "DockerSandbox",
    "FileContent",
    "FileEntries",
    "FileEntry",
    "FileWriteResult",
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
