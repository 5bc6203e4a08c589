"""``HostDirSandbox``: the base of backends whose workspace is a directory on the host.

File primitives run on the host (``_files``, confined); a subclass implements ``_execute``.
The plane's entry points (``run_program``, ``run_python``...) keep OpenRath's semantics.
"""

from __future__ import annotations

import abc
import asyncio
import math
import os
import posixpath
import sys
from collections.abc import Mapping, Sequence
from typing import ClassVar, Self

from rath.backend.results import (
    CodeResult,
    CommandResult,
    FileContent,
    FileEntries,
    FileWriteResult,
)
from rath.backend.sandboxes import _files
from rath.backend.sandboxes._base import Env, SandboxBackend, ToolFailure, closed_error
from rath.backend.sandboxes._process import (
    Execution,
    ProcessOutput,
    check_command,
    check_timeout,
    scrubbed_env,
)
from rath.backend.sandboxes._registry import unavailable_error
from rath.backend.spec import BackendSandboxSpec
from rath.errors import ConfigError, SandboxError

GUEST_WORKSPACE = "/workspace"
"""Where the isolating backends mount the workspace."""
INLINE_WRITE_BYTES = 64 * 1024
"""Writes up to this size run on the event loop (cheaper than a thread hop); larger on a thread."""


class HostDirSandbox(SandboxBackend):
    """A sandbox whose workspace is ``spec.working_dir`` on the worker's host.

    The directory is created on first use and never deleted (the caller owns it).

    Args:
        spec: The sandbox spec; ``working_dir`` must be an absolute path.

    Raises:
        ConfigError: ``spec.working_dir`` is missing or not absolute.
    """

    guest_workspace: ClassVar[str | None] = None
    """Where programs see the workspace (their working directory and ``HOME``) and, when
    set, that they have a private ``/tmp``; ``None``: at its host path, with the host's."""
    guest_path: ClassVar[str | None] = None
    """``PATH`` of programs; ``None``: the worker's."""

    def __init__(self, spec: BackendSandboxSpec) -> None:
        super().__init__(spec)
        if spec.working_dir is None:
            raise ConfigError(
                f"{type(self).__name__} needs BackendSandboxSpec.working_dir: allocate a workspace "
                "directory and pass its absolute path"
            )
        if not os.path.isabs(spec.working_dir):
            raise ConfigError(
                f"BackendSandboxSpec.working_dir must be an absolute path, got {spec.working_dir!r}"
            )
        self._working_dir = spec.working_dir
        self._root: str | None = None
        self._closed = False

    @abc.abstractmethod
    async def _execute(self, run: Execution) -> ProcessOutput:
        """Run ``run.argv`` with the workspace as working directory; the backend's one hook.

        Raises:
            ToolFailure: ``timeout`` or ``os_error``.
        """

    async def _spawn(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        idempotency_key: str | None,
        timeout: float | None,
        cap: int | None,
        stdin: bytes | None,
        cwd: str = ".",
    ) -> ProcessOutput:
        """Run ``argv`` in the workspace with a scrubbed environment: every program's path."""
        root = await self._workspace()
        run = Execution(
            root=root,
            argv=tuple(argv),
            env=self._child_env(root, env, idempotency_key),
            timeout=timeout,
            cap=cap,
            stdin=stdin,
            cwd=cwd,
        )
        return await self._execute(run)

    def _child_env(
        self, root: str, env: Mapping[str, str], idempotency_key: str | None
    ) -> dict[str, str]:
        """The scrubbed environment of a program: the spec's and ``env`` over a minimal one."""
        guest = self.guest_workspace
        return scrubbed_env(
            guest or root,
            {**self.spec.environment, **env},
            idempotency_key,
            tmpdir="/tmp" if guest else None,
            path=self.guest_path,
        )

    async def run_program(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        stdin: bytes | None = None,
        timeout: float | None = None,
        cap: int | None = None,
    ) -> ProcessOutput:
        """Run ``argv`` as given: the backend plane's command (OpenRath's semantics).

        Unlike :meth:`run_command` (the agents' tool path) there is no shell, no command rule,
        no default timeout and no output cap unless asked. The environment is still scrubbed.

        Raises:
            ToolFailure: ``timeout``; ``os_error`` (the program or ``cwd`` cannot be used);
                ``path_outside_workspace`` (``cwd``); ``invalid_argument``.
        """
        root = await self._workspace()
        if not argv or any(not isinstance(arg, str) or "\0" in arg for arg in argv):
            raise ToolFailure("invalid_argument", "argv must be non-empty strings without NUL")
        seconds = _plane_timeout(timeout)
        where = "." if cwd is None else await asyncio.to_thread(_cwd, root, self._host_view(cwd))
        return await self._spawn(
            argv,
            env=env or {},
            idempotency_key=None,
            timeout=seconds,
            cap=cap,
            stdin=stdin,
            cwd=where,
        )

    async def run_python(
        self,
        code: str,
        *,
        language: str = "python",
        timeout: float | None = None,
        cap: int | None = None,
    ) -> ProcessOutput:
        """Run Python code as :meth:`run_code` does, with :meth:`run_program`'s limits (none).

        Raises:
            ToolFailure: ``unsupported_tool`` (not Python), ``invalid_argument``, ``timeout``
                or ``os_error``.
        """
        return await self._python(code, language, timeout, cap, plane=True)

    async def _python(
        self, code: str, language: str, timeout: float | None, cap: int | None, *, plane: bool
    ) -> ProcessOutput:
        """Feed ``code`` to Python; ``plane``: the backend plane's limits, else the agents'."""
        await self._workspace()
        if not isinstance(language, str) or language.strip().lower() != "python":
            raise ToolFailure(
                "unsupported_tool",
                f"language {language!r} is not supported by the {self.name} sandbox; use 'python'",
            )
        if not isinstance(code, str):
            raise ToolFailure("invalid_argument", "code must be a string")
        stdin = _files.encode_text(code, "code")
        seconds = (
            _plane_timeout(timeout) if plane else check_timeout(timeout, self.spec.command_timeout)
        )
        return await self._spawn(
            self._python_argv(), env={}, idempotency_key=None, timeout=seconds, cap=cap, stdin=stdin
        )

    def _python_argv(self) -> list[str]:
        """How to start Python reading a program from stdin (default: the worker's own)."""
        return [sys.executable, "-I", "-"]

    async def _command(
        self, cmd: str, timeout: float | None, env: Env, key: str | None, stdin: bytes | None
    ) -> CommandResult:
        """Run ``/bin/sh -c cmd`` in the workspace (see :meth:`SandboxBackend.run_command`)."""
        await self._workspace()
        check_command(cmd)
        out = await self._spawn(
            ["/bin/sh", "-c", cmd],
            env=env,
            idempotency_key=key,
            timeout=check_timeout(timeout, self.spec.command_timeout),
            cap=self.spec.max_output_bytes,
            stdin=stdin,
        )
        return CommandResult(
            exit_code=out.exit_code,
            stdout=out.stdout,
            stderr=out.stderr,
            elapsed_ms=out.elapsed_ms,
            truncated=out.truncated,
        )

    async def run_code(
        self, code: str, *, language: str = "python", timeout: float | None = None
    ) -> CodeResult:
        """Run Python code in isolated mode (``-I``) (see :meth:`SandboxBackend.run_code`).

        The code is fed on stdin, so nothing is written into the workspace. Isolated mode
        means modules written into the workspace are not importable by name.
        """
        out = await self._python(code, language, timeout, self.spec.max_output_bytes, plane=False)
        return CodeResult(
            text=None,
            exit_code=out.exit_code,
            stdout=out.stdout,
            stderr=out.stderr,
            error=code_error(out),
            truncated=out.truncated,
        )

    def _host_view(self, path: str) -> str:
        """``path`` as the file tools take it: the guest's workspace path becomes relative.

        Commands see the workspace at :attr:`guest_workspace` (``pwd`` prints
        ``/workspace``), so a model may well name ``/workspace/notes.txt``; that means the
        workspace's ``notes.txt``. Anything else is left for the usual confinement check.
        """
        guest = self.guest_workspace
        if guest is None or not isinstance(path, str) or not path.startswith("/"):
            return path
        normal = posixpath.normpath(path)
        if normal == guest:
            return "."
        if normal.startswith(guest + "/"):
            return normal[len(guest) + 1 :]
        return path

    async def read_file(
        self, path: str, *, encoding: str | None = "utf-8", whole: bool = False
    ) -> FileContent:
        """Read a workspace file (see :meth:`SandboxBackend.read_file`).

        ``whole``: however long (the backend plane's read), not up to the output cap.
        """
        root = await self._workspace()
        cap = None if whole else self.spec.max_output_bytes
        return await asyncio.to_thread(_files.read_file, root, self._host_view(path), encoding, cap)

    async def write_file(self, path: str, data: str | bytes) -> FileWriteResult:
        """Atomically write a workspace file (see :meth:`SandboxBackend.write_file`)."""
        root = await self._workspace()
        if len(data) <= INLINE_WRITE_BYTES:  # a few system calls: less than a thread hop
            return _files.write_file(root, self._host_view(path), data)
        return await asyncio.to_thread(_files.write_file, root, self._host_view(path), data)

    async def list_files(self, path: str, *, whole: bool = False) -> FileEntries:
        """List a workspace directory (see :meth:`SandboxBackend.list_files`).

        ``whole``: every entry (the backend plane's listing), not up to the usual limit.
        """
        root = await self._workspace()
        limit = None if whole else _files.MAX_LIST_ENTRIES
        return await asyncio.to_thread(_files.list_files, root, self._host_view(path), limit)

    async def path_exists(self, path: str) -> bool:
        """Tell whether a workspace path exists (see :meth:`SandboxBackend.path_exists`)."""
        root = await self._workspace()
        return _files.path_exists(root, self._host_view(path))  # one stat: less than a hop

    async def __aenter__(self) -> Self:
        """Check that the backend can run here and create the workspace, failing fast.

        Raises:
            SandboxUnavailableError: The backend cannot run on this worker.
            ConfigError: The workspace path is a file (or below one).
            SandboxError: The workspace directory cannot be created.
        """
        await self._workspace()
        return self

    async def aclose(self) -> None:
        """Mark the sandbox closed; the workspace directory is left in place.

        Commands already running are not interrupted: their timeout bounds them.
        """
        self._closed = True

    async def _workspace(self) -> str:
        if self._closed:
            raise closed_error(self.name)
        if self._root is None:
            self._root = await asyncio.to_thread(self._prepare_root)
        return self._root

    def _prepare_root(self) -> str:
        """Check the backend can run here, create the workspace, return its real path.

        Runs in a thread, once per sandbox.

        Raises:
            SandboxUnavailableError: The backend cannot run on this worker.
            ConfigError: The workspace path is a file (or below one).
            SandboxError: The workspace directory cannot be created.
        """
        reason = self.unavailable_reason()
        if reason is not None:
            raise unavailable_error(self.name, reason)
        try:
            os.makedirs(self._working_dir, exist_ok=True)
        except (FileExistsError, NotADirectoryError) as exc:
            # Permanent: retrying cannot turn a file into a directory (a ConfigError fails
            # the call once instead of three times).
            raise ConfigError(
                f"the {self.name} sandbox workspace {self._working_dir!r} is, or is inside, a "
                "file: pass a directory path to .to(...)"
            ) from exc
        except OSError as exc:
            raise SandboxError(
                f"cannot create the {self.name} sandbox workspace directory "
                f"{self._working_dir!r}: {exc.strerror}"
            ) from exc
        return os.path.realpath(self._working_dir)


def code_error(out: ProcessOutput) -> str | None:
    """A code run's error: its stderr (or the exit code) when it failed, else ``None``."""
    if out.exit_code == 0:
        return None
    return out.stderr or f"exited with code {out.exit_code}"


def _plane_timeout(timeout: float | None) -> float | None:
    """``timeout`` as :meth:`HostDirSandbox.run_program` applies it (``None``: no limit)."""
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise ToolFailure("invalid_argument", "timeout must be a number of seconds")
    if not timeout > 0:  # also NaN
        raise ToolFailure("timeout", f"timed out after {timeout:g} s (it was not started)")
    return None if math.isinf(timeout) else float(timeout)


def _cwd(root: str, path: str) -> str:
    """``path``, a program's working directory, relative to the workspace (blocking).

    Raises:
        ToolFailure: ``path_outside_workspace``, ``invalid_argument``, or ``os_error`` when it
            is not a directory (OpenRath's kind for a working directory it cannot enter).
    """
    real, shown = _files.resolve(root, path)
    if not os.path.isdir(real):
        error = "FileNotFoundError" if not os.path.exists(real) else "NotADirectoryError"
        raise ToolFailure("os_error", f"working directory {shown!r} is not a directory", error)
    return os.path.relpath(real, root)
