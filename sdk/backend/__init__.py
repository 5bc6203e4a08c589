"""OpenRath's backend plane: sandbox backends from plain Python (see docs/sandboxes.md).

``rath.backend.get("local").open(spec)`` gives a :class:`BackendSandbox` whose ``dispatch`` runs
OpenRath's payloads. Names load on first use (PEP 562): importing a value module of this
package loads no sandbox.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rath.utils.lazy import lazy_names

if TYPE_CHECKING:
    from rath.backend._loop import SharedLoop, shared_loop
    from rath.backend.abc import Backend, BackendSandbox
    from rath.backend.capabilities import Capabilities, IsolationLevel
    from rath.backend.errors import (
        BackendError,
        BackendNotFound,
        BackendSandboxClosed,
        UnsupportedBackendTool,
    )
    from rath.backend.local import (
        BwrapBackend,
        DockerBackend,
        HostDirBackend,
        LocalBackend,
        OpenSandboxBackend,
    )
    from rath.backend.registry import (
        current,
        get,
        get_class,
        is_available,
        list_names,
        preferred,
        register,
        set_default,
    )
    from rath.backend.results import (
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
    from rath.backend.spec import BackendSandboxSpec, SandboxLimits
    from rath.backend.stream import Event, Future, Stream
    from rath.backend.tool_types import (
        BackendTool,
        BackendToolCodeRun,
        BackendToolCommandRun,
        BackendToolFilesExists,
        BackendToolFilesList,
        BackendToolFilesRead,
        BackendToolFilesWrite,
    )


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
    "Backend": "rath.backend.abc",
    "BackendError": "rath.backend.errors",
    "BackendNotFound": "rath.backend.errors",
    "BackendSandbox": "rath.backend.abc",
    "BackendSandboxClosed": "rath.backend.errors",
    "BackendSandboxSpec": "rath.backend.spec",
    "BackendTool": "rath.backend.tool_types",
    "BackendToolCodeRun": "rath.backend.tool_types",
    "BackendToolCommandRun": "rath.backend.tool_types",
    "BackendToolFilesExists": "rath.backend.tool_types",
    "BackendToolFilesList": "rath.backend.tool_types",
    "BackendToolFilesRead": "rath.backend.tool_types",
    "BackendToolFilesWrite": "rath.backend.tool_types",
    "BwrapBackend": "rath.backend.local",
    "Capabilities": "rath.backend.capabilities",
    "CodeResult": "rath.backend.results",
    "CommandResult": "rath.backend.results",
    "DockerBackend": "rath.backend.local",
    "Event": "rath.backend.stream",
    "FileContent": "rath.backend.results",
    "FileEntries": "rath.backend.results",
    "FileEntry": "rath.backend.results",
    "FileWriteResult": "rath.backend.results",
    "Future": "rath.backend.stream",
    "HostDirBackend": "rath.backend.local",
    "IsolationLevel": "rath.backend.capabilities",
    "LocalBackend": "rath.backend.local",
    "OpenSandboxBackend": "rath.backend.local",
    "SandboxLimits": "rath.backend.spec",
    "SharedLoop": "rath.backend._loop",
    "Stream": "rath.backend.stream",
    "ToolExecutionFailure": "rath.backend.results",
    "ToolResult": "rath.backend.results",
    "UnsupportedBackendTool": "rath.backend.errors",
    "current": "rath.backend.registry",
    "get": "rath.backend.registry",
    "get_class": "rath.backend.registry",
    "is_available": "rath.backend.registry",
    "list_names": "rath.backend.registry",
    "preferred": "rath.backend.registry",
    "register": "rath.backend.registry",
    "set_default": "rath.backend.registry",
    "shared_loop": "rath.backend._loop",
    "tool_failure_from": "rath.backend.results",
}


__getattr__ = lazy_names(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
