"""``LocalSandbox``: a host directory as the workspace, host processes for commands and code.

Isolation is at the process level only: file primitives are confined to the workspace, but a
shell command can still read anything the worker user can (use a bwrap or docker backend for
real isolation). What this backend does guarantee:

* file paths never resolve outside the workspace (``..``, outside absolute paths and symlinks
  leaving it are refused), and failure messages never show absolute host paths;
* commands and code run with a scrubbed environment (the worker's API keys never leak in), in
  their own process group, killed as a group on timeout, with output capped while it is read;
* writes are atomic, so a retried or interrupted write never leaves a partial file.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Mapping

from rath.errors import ConfigError, SandboxError
from rath.sandbox import _files
from rath.sandbox._base import (
    Capabilities,
    SandboxBackend,
    SandboxSpec,
    ToolFailure,
    closed_error,
)
from rath.sandbox._process import check_timeout, run_process, scrubbed_env
from rath.sandbox._results import (
    CodeResult,
    CommandResult,
    FileContent,
    FileEntries,
    FileWriteResult,
)

MAX_COMMAND_CHARS = 8192


class LocalSandbox(SandboxBackend):
    """A sandbox whose workspace is ``spec.working_dir`` on the worker's host.

    The directory is created on first use and never deleted (the caller owns it).

    Args:
        spec: The sandbox spec; ``working_dir`` must be an absolute path.

    Raises:
        ConfigError: ``spec.working_dir`` is missing or not absolute.
    """

    name = "local"
    capabilities = Capabilities(
        isolation="process", supports_command=True, supports_filesystem=True, supports_code=True
    )

    def __init__(self, spec: SandboxSpec) -> None:
        super().__init__(spec)
        if spec.working_dir is None:
            raise ConfigError(
                "LocalSandbox needs SandboxSpec.working_dir: allocate a workspace directory "
                "and pass its absolute path"
            )
        if not os.path.isabs(spec.working_dir):
            raise ConfigError(
                f"SandboxSpec.working_dir must be an absolute path, got {spec.working_dir!r}"
            )
        self._working_dir = spec.working_dir
        self._root: str | None = None
        self._closed = False

    async def run_command(
        self,
        cmd: str,
        *,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> CommandResult:
        """Run ``/bin/sh -c cmd`` in the workspace (see :meth:`SandboxBackend.run_command`)."""
        root = await self._workspace()
        _check_command(cmd)
        seconds = check_timeout(timeout, self.spec.command_timeout)
        child_env = scrubbed_env(root, {**self.spec.env, **(env or {})}, idempotency_key)
        out = await run_process(
            ["/bin/sh", "-c", cmd],
            cwd=root,
            env=child_env,
            timeout=seconds,
            cap=self.spec.max_output_bytes,
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
        """Run Python code with ``sys.executable -I -`` (see :meth:`SandboxBackend.run_code`).

        The code is fed on stdin, so nothing is written into the workspace. Isolated mode
        (``-I``) means modules written into the workspace are not importable by name.
        """
        root = await self._workspace()
        if not isinstance(language, str) or language.strip().lower() != "python":
            raise ToolFailure(
                "unsupported_tool",
                f"language {language!r} is not supported by the local sandbox; use 'python'",
            )
        if not isinstance(code, str):
            raise ToolFailure("invalid_argument", "code must be a string")
        seconds = check_timeout(timeout, self.spec.command_timeout)
        out = await run_process(
            [sys.executable, "-I", "-"],
            cwd=root,
            env=scrubbed_env(root, self.spec.env, None),
            timeout=seconds,
            cap=self.spec.max_output_bytes,
            stdin_data=_files.encode_text(code, "code"),
        )
        error = None
        if out.exit_code != 0:
            error = out.stderr or f"exited with code {out.exit_code}"
        return CodeResult(
            exit_code=out.exit_code,
            stdout=out.stdout,
            stderr=out.stderr,
            error=error,
            truncated=out.truncated,
        )

    async def read_file(self, path: str, *, encoding: str | None = "utf-8") -> FileContent:
        """Read a workspace file (see :meth:`SandboxBackend.read_file`)."""
        root = await self._workspace()
        return await asyncio.to_thread(
            _files.read_file, root, path, encoding, self.spec.max_output_bytes
        )

    async def write_file(self, path: str, data: str | bytes) -> FileWriteResult:
        """Atomically write a workspace file (see :meth:`SandboxBackend.write_file`)."""
        root = await self._workspace()
        return await asyncio.to_thread(_files.write_file, root, path, data)

    async def list_files(self, path: str) -> FileEntries:
        """List a workspace directory (see :meth:`SandboxBackend.list_files`)."""
        root = await self._workspace()
        return await asyncio.to_thread(_files.list_files, root, path)

    async def path_exists(self, path: str) -> bool:
        """Tell whether a workspace path exists (see :meth:`SandboxBackend.path_exists`)."""
        root = await self._workspace()
        return await asyncio.to_thread(_files.path_exists, root, path)

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
        try:
            os.makedirs(self._working_dir, exist_ok=True)
        except OSError as exc:
            raise SandboxError(
                f"cannot create the local sandbox workspace directory: {exc.strerror}"
            ) from exc
        return os.path.realpath(self._working_dir)


def _check_command(cmd: str) -> None:
    if not isinstance(cmd, str):
        raise ToolFailure("invalid_argument", "the command must be a string")
    if not cmd.strip():
        raise ToolFailure("invalid_argument", "the command is empty")
    if "\n" in cmd or "\r" in cmd:
        raise ToolFailure(
            "invalid_argument",
            "multiline commands are rejected; chain commands with && or ; on one line, "
            "or write a script file and run it",
        )
    if "\0" in cmd:
        raise ToolFailure("invalid_argument", "the command contains a NUL character")
    if len(cmd) > MAX_COMMAND_CHARS:
        raise ToolFailure(
            "invalid_argument",
            f"the command is too long ({len(cmd)} characters, limit {MAX_COMMAND_CHARS}); "
            "write a script file and run it",
        )
