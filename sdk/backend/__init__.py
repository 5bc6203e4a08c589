"""OpenRath's backend plane: sandbox backends from plain Python (see docs/sandboxes.md).

``rath.backend.get("local").open(spec)`` gives a :class:`BackendSandbox` whose ``dispatch`` runs
OpenRath's payloads. Names load on first use (PEP 562): importing a value module of this
package loads no sandbox.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rath.utils.lazy import lazy_dir, lazy_names

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


# Each name loads from the module the TYPE_CHECKING block names, on first use.
__getattr__ = lazy_names(__name__)
__dir__ = lazy_dir(__name__)
