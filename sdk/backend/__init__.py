"""OpenRath's backend plane: sandbox backends from plain Python (see docs/sandboxes.md).

``rath.backend.get("local").open(spec)`` gives a :class:`BackendSandbox` whose ``dispatch`` runs
OpenRath's payloads. Names load on first use (PEP 562): importing a value module of this
package loads no sandbox.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rath.utils.lazy import lazy_names

if TYPE_CHECKING:
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

_EXPORTS: dict[str, str] = {
    "Backend": "rath.backend._backend",
    "BackendError": "rath.backend._errors",
    "BackendNotFound": "rath.backend._errors",
    "BackendSandbox": "rath.backend._handle",
    "BackendSandboxClosed": "rath.backend._errors",
    "BackendSandboxSpec": "rath.backend.spec",
    "BackendTool": "rath.backend._types",
    "BackendToolCodeRun": "rath.backend._types",
    "BackendToolCommandRun": "rath.backend._types",
    "BackendToolFilesExists": "rath.backend._types",
    "BackendToolFilesList": "rath.backend._types",
    "BackendToolFilesRead": "rath.backend._types",
    "BackendToolFilesWrite": "rath.backend._types",
    "BwrapBackend": "rath.backend.local",
    "Capabilities": "rath.backend._types",
    "CodeResult": "rath.backend._types",
    "CommandResult": "rath.backend._types",
    "DockerBackend": "rath.backend.local",
    "Event": "rath.backend._stream",
    "FileContent": "rath.backend._types",
    "FileEntries": "rath.backend._types",
    "FileEntry": "rath.backend._types",
    "FileWriteResult": "rath.backend._types",
    "Future": "rath.backend._stream",
    "HostDirBackend": "rath.backend.local",
    "IsolationLevel": "rath.backend._types",
    "LocalBackend": "rath.backend.local",
    "OpenSandboxBackend": "rath.backend.local",
    "SandboxLimits": "rath.backend.spec",
    "SharedLoop": "rath.backend._loop",
    "Stream": "rath.backend._stream",
    "ToolExecutionFailure": "rath.backend._types",
    "ToolResult": "rath.backend._types",
    "UnsupportedBackendTool": "rath.backend._errors",
    "current": "rath.backend._registry",
    "get": "rath.backend._registry",
    "get_class": "rath.backend._registry",
    "is_available": "rath.backend._registry",
    "list_names": "rath.backend._registry",
    "preferred": "rath.backend._registry",
    "register": "rath.backend._registry",
    "set_default": "rath.backend._registry",
    "shared_loop": "rath.backend._loop",
    "tool_failure_from": "rath.backend._types",
}


__getattr__ = lazy_names(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
