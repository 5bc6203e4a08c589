"""The sandbox interface: a spec, a small async backend ABC and ``ToolFailure``.

A backend is to Rath what a transport is to httpx: a handful of async primitives (run a command,
read/write/list files, run code) behind one abstract class, so the tool layer never cares whether
work happens in a local directory, a bubblewrap jail or a container.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping
from types import TracebackType
from typing import ClassVar, Self

from rath.backend.capabilities import Capabilities
from rath.backend.results import (
    CodeResult,
    CommandResult,
    FileContent,
    FileEntries,
    FileWriteResult,
)
from rath.backend.spec import BackendSandboxSpec
from rath.errors import SandboxError

__all__ = [
    "Capabilities",
    "SandboxBackend",
    "ToolFailure",
    "closed_error",
]


Env = Mapping[str, str]


class ToolFailure(Exception):
    """An expected failure of a sandbox primitive, reported to the model rather than crashing.

    Kinds: ``path_outside_workspace``, ``file_not_found``, ``not_a_directory``,
    ``is_a_directory``, ``timeout``, ``unsupported_tool``, ``os_error``, ``invalid_argument``.
    Messages never contain absolute host paths.

    Attributes:
        kind: A short machine-readable failure kind.
        message: A one-line explanation for the model.
        detail: Optional extra context (for example the exception class that caused it).
    """

    def __init__(self, kind: str, message: str, detail: str | None = None) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message
        self.detail = detail

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.kind, self.message, self.detail))


class SandboxBackend(abc.ABC):
    """A sandbox: a workspace plus the primitives the built-in tools need.

    Expected failures (bad paths, timeouts, missing files) raise :class:`ToolFailure`; anything
    else is a bug or an infrastructure problem. Use as ``async with open_sandbox(spec) as sb:``.

    Attributes:
        name: The registry name of the backend.
        capabilities: What the backend supports.
        spec: The spec this sandbox was opened with.
    """

    name: ClassVar[str]
    capabilities: ClassVar[Capabilities]

    def __init__(self, spec: BackendSandboxSpec) -> None:
        self.spec = spec

    @classmethod
    def unavailable_reason(cls) -> str | None:
        """Why this backend cannot run on this worker, or ``None`` when it can.

        May block briefly (a backend can probe a binary or a daemon); the default says the
        backend is always usable.
        """
        return None

    async def run_command(
        self,
        cmd: str,
        *,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
        stdin: bytes | None = None,
    ) -> CommandResult:
        """Run one shell command in the workspace.

        Raises:
            ToolFailure: ``invalid_argument``, ``timeout`` or ``os_error``.
        """
        return await self._command(cmd, timeout, env or {}, idempotency_key, stdin)

    @abc.abstractmethod
    async def _command(
        self, cmd: str, timeout: float | None, env: Env, key: str | None, stdin: bytes | None
    ) -> CommandResult:
        """:meth:`run_command`'s work (``env``: the command's extra variables)."""

    @abc.abstractmethod
    async def read_file(self, path: str, *, encoding: str | None = "utf-8") -> FileContent:
        """Read a workspace file, capped at ``spec.max_output_bytes``.

        Raises:
            ToolFailure: ``path_outside_workspace``, ``file_not_found``, ``is_a_directory``,
                ``invalid_argument`` or ``os_error``.
        """

    @abc.abstractmethod
    async def write_file(self, path: str, data: str | bytes) -> FileWriteResult:
        """Atomically write a workspace file, creating parent directories.

        Raises:
            ToolFailure: ``path_outside_workspace``, ``is_a_directory``, ``not_a_directory`` or
                ``os_error``.
        """

    @abc.abstractmethod
    async def list_files(self, path: str) -> FileEntries:
        """List a workspace directory (non-recursive, sorted by name).

        Raises:
            ToolFailure: ``path_outside_workspace``, ``file_not_found``, ``not_a_directory`` or
                ``os_error``.
        """

    @abc.abstractmethod
    async def path_exists(self, path: str) -> bool:
        """Tell whether a workspace path exists.

        Raises:
            ToolFailure: ``path_outside_workspace`` (a path outside is refused, not answered).
        """

    @abc.abstractmethod
    async def run_code(
        self, code: str, *, language: str = "python", timeout: float | None = None
    ) -> CodeResult:
        """Run a code snippet with the workspace as working directory.

        Raises:
            ToolFailure: ``unsupported_tool``, ``invalid_argument``, ``timeout`` or ``os_error``.
        """

    @abc.abstractmethod
    async def aclose(self) -> None:
        """Release the sandbox's resources. Idempotent."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


def closed_error(name: str) -> SandboxError:
    """The error raised when a closed sandbox is used."""
    return SandboxError(f"the {name!r} sandbox is closed")
