"""OpenRath's backend plane: sandbox backends used directly from plain Python.

``rath.backend.get("local").open(spec)`` gives a :class:`BackendSandbox` handle whose
``dispatch`` runs OpenRath's payloads (``BackendToolCommandRun``, file reads and writes,
listings, code runs) and returns OpenRath's result types. Handles count references, and a
:class:`Stream` runs payloads in order on a worker thread. The backends are Rath's sandboxes
(``local``, ``bwrap``, ``docker``); agents' tool calls use them through workflow activities.
"""

from __future__ import annotations

from rath.backend._backend import Backend
from rath.backend._errors import (
    BackendError,
    BackendNotFound,
    BackendSandboxClosed,
    UnsupportedBackendTool,
)
from rath.backend._handle import BackendSandbox
from rath.backend._loop import SharedLoop, shared_loop
from rath.backend._registry import (
    current,
    get,
    get_class,
    is_available,
    list_names,
    preferred,
    register,
    set_default,
)
from rath.backend._stream import Event, Future, Stream
from rath.backend._types import (
    BackendTool,
    BackendToolCodeRun,
    BackendToolCommandRun,
    BackendToolFilesExists,
    BackendToolFilesList,
    BackendToolFilesRead,
    BackendToolFilesWrite,
    Capabilities,
    CodeResult,
    CommandResult,
    FileContent,
    FileEntries,
    FileEntry,
    FileWriteResult,
    IsolationLevel,
    ToolExecutionFailure,
    ToolResult,
    tool_failure_from,
)
from rath.backend.local import (
    BwrapBackend,
    DockerBackend,
    HostDirBackend,
    LocalBackend,
    OpenSandboxBackend,
)
from rath.backend.spec import BackendSandboxSpec, SandboxLimits

__all__ = [
    "Backend",
    "BackendError",
    "BackendNotFound",
    "BackendSandbox",
    "BackendSandboxClosed",
    "BackendSandboxSpec",
    "BackendTool",
    "BackendToolCodeRun",
    "BackendToolCommandRun",
    "BackendToolFilesExists",
    "BackendToolFilesList",
    "BackendToolFilesRead",
    "BackendToolFilesWrite",
    "BwrapBackend",
    "Capabilities",
    "CodeResult",
    "CommandResult",
    "DockerBackend",
    "Event",
    "FileContent",
    "FileEntries",
    "FileEntry",
    "FileWriteResult",
    "Future",
    "HostDirBackend",
    "IsolationLevel",
    "LocalBackend",
    "OpenSandboxBackend",
    "SandboxLimits",
    "SharedLoop",
    "Stream",
    "ToolExecutionFailure",
    "ToolResult",
    "UnsupportedBackendTool",
    "current",
    "get",
    "get_class",
    "is_available",
    "list_names",
    "preferred",
    "register",
    "set_default",
    "shared_loop",
    "tool_failure_from",
]
