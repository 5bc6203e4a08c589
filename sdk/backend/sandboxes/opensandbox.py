"""``OpenSandboxSandbox``: a sandbox on an OpenSandbox server (``opensandbox-server``).

Settings, the remote workspace, reattaching and renewal: docs/sandboxes.md, "OpenSandbox".
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.util
import os
import posixpath
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any, Self

from rath.backend import results as r
from rath.backend.capabilities import Capabilities, IsolationLevel
from rath.backend.sandboxes._base import Env, SandboxBackend, ToolFailure, closed_error
from rath.backend.sandboxes._hostdir import GUEST_WORKSPACE
from rath.backend.sandboxes._process import CappedBuffer, check_command, check_timeout
from rath.backend.sandboxes._registry import unavailable_error
from rath.backend.spec import BackendSandboxSpec
from rath.errors import ConfigError, SandboxError

__all__ = [
    "DEFAULT_IMAGE",
    "GUEST_WORKSPACE",
    "ID_FILE",
    "OpenSandboxSandbox",
    "opensandbox_config",
]

DEFAULT_IMAGE = "opensandbox/code-interpreter:v1.0.2"
ID_FILE = ".opensandbox-id"
_IDLE = ["tail", "-f", "/dev/null"]
_LIFETIME = timedelta(hours=1)
_READY = timedelta(seconds=60)
_DOMAIN_ENVS = ("OPEN_SANDBOX_DOMAIN", "OPENSANDBOX_DOMAIN")
_NO_SDK = "the OpenSandbox SDK is not installed (pip install 'rath[opensandbox]')"


def opensandbox_config() -> tuple[str, str | None] | None:
    """``(domain, api key)`` from the environment, or ``None`` when no server is named."""
    domain = next((os.environ[name] for name in _DOMAIN_ENVS if os.environ.get(name)), None)
    if domain is None:
        return None
    return domain, os.environ.get("OPEN_SANDBOX_API_KEY") or None


class OpenSandboxSandbox(SandboxBackend):
    """A container on an OpenSandbox server (see the module docstring).

    ``spec.image`` is the sandbox image (default OpenSandbox's code interpreter); it must be
    available to the server's Docker. ``spec.env`` reaches every command.

    Raises:
        SandboxUnavailableError: On first use, when the SDK is missing or no server is named.
        SandboxError: The server refused or failed to create the sandbox.
    """

    name = "opensandbox"
    capabilities = Capabilities(IsolationLevel.CONTAINER, True, True, True)

    def __init__(self, spec: BackendSandboxSpec) -> None:
        super().__init__(spec)
        if spec.host_network:
            raise ConfigError("an OpenSandbox sandbox cannot share the worker's network")
        self.image = spec.image or DEFAULT_IMAGE
        self._remote: Any = None
        self._renewed = 0.0
        self._lock = asyncio.Lock()
        self._closed = False

    @classmethod
    def unavailable_reason(cls) -> str | None:
        """Why OpenSandbox cannot be used here (no SDK, no server named), or ``None``."""
        if importlib.util.find_spec("opensandbox") is None:
            return _NO_SDK
        if opensandbox_config() is None:
            return "no OpenSandbox server is named (set OPEN_SANDBOX_DOMAIN=host:port)"
        return None

    @property
    def remote_id(self) -> str | None:
        """The server's id of the sandbox, once open."""
        return None if self._remote is None else str(self._remote.id)

    async def __aenter__(self) -> Self:
        await self._sandbox()
        return self

    async def aclose(self) -> None:
        """Kill the remote sandbox (its files go with it). Idempotent."""
        self._closed = True
        async with self._lock:
            remote, self._remote = self._remote, None
        if remote is None:
            return
        try:
            await remote.kill()
        except Exception as exc:
            if _status(exc) != 404:  # another holder of the same sandbox killed it already
                raise _failure(exc, "kill", None) from exc
        with contextlib.suppress(Exception):
            await remote.close()
        marker = self._marker()
        if marker is not None:
            marker.unlink(missing_ok=True)

    async def detach(self) -> None:
        """Let go of the remote sandbox without killing it (its id stays in the workspace).

        A later open of the same workspace reattaches; the holder that closes it kills it.
        """
        self._closed = True
        async with self._lock:
            remote, self._remote = self._remote, None
        if remote is not None:
            with contextlib.suppress(Exception):
                await remote.close()

    async def _command(
        self, cmd: str, timeout: float | None, env: Env, key: str | None, stdin: bytes | None
    ) -> r.CommandResult:
        """Run ``cmd`` with ``/bin/sh -c`` in ``/workspace`` (see :class:`SandboxBackend`)."""
        check_command(cmd)
        seconds = check_timeout(timeout, self.spec.command_timeout)
        envs = {**self.spec.environment, **env}
        if key is not None:
            envs["RATH_IDEMPOTENCY_KEY"] = key
        remote = await self._sandbox()
        staged = None
        if stdin is not None:
            staged = f"/tmp/.rath-stdin-{uuid.uuid4().hex}"
            with _errors("stage stdin"):
                await remote.files.write_file(staged, stdin)
            cmd = f"( {cmd}\n) < {staged}; status=$?; rm -f {staged}; exit $status"
        return await self._run(remote, cmd, seconds, envs)

    async def read_file(self, path: str, *, encoding: str | None = "utf-8") -> r.FileContent:
        """Read a file of the sandbox's workspace, capped at ``spec.max_output_bytes``."""
        guest, shown = self._guest(path)
        remote = await self._sandbox()
        with _errors("read", shown):
            data: bytes = await remote.files.read_bytes(guest)
        cap = self.spec.max_output_bytes
        text = data[:cap].decode(encoding or "utf-8", errors="replace")
        return r.FileContent(data=text, truncated=len(data) > cap)

    async def write_file(self, path: str, data: str | bytes) -> r.FileWriteResult:
        """Write a file of the sandbox's workspace (parents are created)."""
        guest, shown = self._guest(path)
        payload = data.encode() if isinstance(data, str) else bytes(data)
        remote = await self._sandbox()
        with _errors("write", shown):
            await remote.files.write_file(guest, payload, mode=644)
        return r.FileWriteResult(bytes_written=len(payload))

    async def list_files(self, path: str) -> r.FileEntries:
        """List a directory of the sandbox's workspace (one level, sorted by name)."""
        guest, shown = self._guest(path)
        remote = await self._sandbox()
        sdk = _sdk()
        with _errors("list", shown):
            infos = await remote.files.get_file_info([guest])
            info = infos.get(guest)
            if info is not None and info.entry_type not in (None, "directory", "dir"):
                raise ToolFailure("not_a_directory", f"{shown} is not a directory")
            found = await remote.files.list_directory(
                sdk.models.filesystem.DirectoryListEntry(path=guest)
            )
        entries = sorted(
            (
                r.FileEntry(
                    name=posixpath.basename(item.path),
                    path=posixpath.relpath(item.path, GUEST_WORKSPACE),
                    is_dir=item.entry_type in ("directory", "dir"),
                )
                for item in found
                if posixpath.dirname(item.path.rstrip("/")) == guest.rstrip("/")
            ),
            key=lambda entry: entry.name,
        )
        return r.FileEntries(entries=tuple(entries))

    async def path_exists(self, path: str) -> bool:
        """Whether ``path`` exists in the sandbox's workspace."""
        guest, _ = self._guest(path)
        remote = await self._sandbox()
        try:
            infos = await remote.files.get_file_info([guest])
        except Exception as exc:
            if _status(exc) == 404:
                return False
            raise _failure(exc, "stat", path) from exc
        return guest in infos

    async def run_code(
        self, code: str, *, language: str = "python", timeout: float | None = None
    ) -> r.CodeResult:
        """Run Python code with ``python3`` in ``/workspace``."""
        if language != "python":
            raise ToolFailure(
                "unsupported_tool", f"the opensandbox backend runs python, not {language}"
            )
        seconds = check_timeout(timeout, self.spec.command_timeout)
        remote = await self._sandbox()
        script = f"/tmp/.rath_code_{uuid.uuid4().hex}.py"
        with _errors("stage code"):
            await remote.files.write_file(script, code.encode())
        cmd = f"python3 {script}; status=$?; rm -f {script}; exit $status"
        result = await self._run(remote, cmd, seconds, self.spec.environment)
        error = str(result.stderr) if result.exit_code != 0 else None
        return r.CodeResult(
            text=None,
            exit_code=result.exit_code,
            stdout=result.stdout,
            stderr=result.stderr,
            error=error,
            truncated=result.truncated,
        )

    async def _run(
        self, remote: Any, cmd: str, seconds: float, envs: dict[str, str]
    ) -> r.CommandResult:
        sdk = _sdk()
        opts = sdk.models.execd.RunCommandOpts(
            working_directory=GUEST_WORKSPACE, timeout=timedelta(seconds=seconds), envs=envs
        )
        started = time.monotonic()
        with _errors("run a command"):
            execution = await asyncio.wait_for(
                remote.commands.run(cmd, opts=opts), timeout=seconds + 30
            )
        elapsed = (time.monotonic() - started) * 1000
        error = execution.error
        # execd reports a command it killed at its deadline as exit 137 (SIGKILL).
        if execution.exit_code in (137, -9) and elapsed >= seconds * 1000 * 0.9:
            raise ToolFailure("timeout", f"the command did not finish within {seconds:g} s")
        cap = self.spec.max_output_bytes
        out, err = CappedBuffer(cap), CappedBuffer(cap)
        for message in execution.logs.stdout:
            out.add(message.text.encode())
        for message in execution.logs.stderr:
            err.add(message.text.encode())
        exit_code = execution.exit_code
        if exit_code is None:
            exit_code = 1 if error is not None else 0
        return r.CommandResult(
            exit_code=exit_code,
            stdout=out.text(),
            stderr=err.text() or (f"{error.name}: {error.value}" if error else ""),
            elapsed_ms=elapsed,
            truncated=bool(out.dropped or err.dropped),
        )

    async def _sandbox(self) -> Any:
        async with self._lock:
            if self._closed:
                raise closed_error(self.name)
            if self._remote is None:
                self._remote = await self._open()
                self._renewed = time.monotonic()
            elif time.monotonic() - self._renewed > _LIFETIME.total_seconds() / 2:
                # A session in use keeps its sandbox: the server ends it only when left alone.
                with _errors("renew"):
                    await self._remote.renew(_LIFETIME)
                self._renewed = time.monotonic()
            return self._remote

    async def _open(self) -> Any:
        reason = self.unavailable_reason()
        if reason is not None:
            raise unavailable_error(self.name, reason)
        sdk = _sdk()
        marker = self._marker()
        if marker is not None and marker.is_file():
            remote_id = marker.read_text().strip()
            with contextlib.suppress(SandboxError), _errors("reattach"):
                return await sdk.Sandbox.connect(
                    remote_id, connection_config=_connection(), connect_timeout=_READY
                )
        with _errors("create"):
            remote = await sdk.Sandbox.create(
                self.image,
                entrypoint=_IDLE,
                env=self.spec.environment,
                timeout=_LIFETIME,
                ready_timeout=_READY,
                connection_config=_connection(),
            )
        with _errors("prepare the workspace"):
            await remote.commands.run(f"mkdir -p {GUEST_WORKSPACE}")
        if marker is not None:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.write_text(str(remote.id))
        return remote

    def _marker(self) -> Path | None:
        return Path(self.spec.working_dir) / ID_FILE if self.spec.working_dir else None

    def _guest(self, path: str) -> tuple[str, str]:
        if not isinstance(path, str) or "\0" in path:
            raise ToolFailure("invalid_argument", "path must be a string without NUL bytes")
        joined = posixpath.normpath(posixpath.join(GUEST_WORKSPACE, path or "."))
        if joined != GUEST_WORKSPACE and not joined.startswith(GUEST_WORKSPACE + "/"):
            raise ToolFailure("path_outside_workspace", f"{path} is outside the workspace")
        return joined, posixpath.relpath(joined, GUEST_WORKSPACE)


def _sdk() -> Any:
    sdk = importlib.import_module("opensandbox")
    importlib.import_module("opensandbox.models.execd")
    importlib.import_module("opensandbox.models.filesystem")
    return sdk


def _connection() -> Any:
    config = opensandbox_config()
    assert config is not None
    domain, api_key = config
    module = importlib.import_module("opensandbox.config")
    return module.ConnectionConfig(domain=domain, api_key=api_key, request_timeout=_READY)


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def _failure(exc: BaseException, action: str, shown: str | None) -> Exception:
    status = _status(exc)
    where = f" {shown}" if shown else ""
    if status == 404 and shown is not None:
        return ToolFailure("file_not_found", f"no such file or directory:{where}")
    if type(exc).__name__ == "SandboxTimeoutException" or isinstance(exc, TimeoutError):
        return ToolFailure("timeout", f"OpenSandbox did not answer to {action}{where} in time")
    return SandboxError(f"OpenSandbox could not {action}{where}: {exc}")


@contextlib.contextmanager
def _errors(action: str, shown: str | None = None) -> Iterator[None]:
    """Translate the SDK's exceptions, once, at this boundary."""
    try:
        yield
    except (ToolFailure, SandboxError):
        raise
    except Exception as exc:
        raise _failure(exc, action, shown) from exc
