"""``DockerSandbox``: commands and code in a locked-down container; files on the host.

The container, its limits and how a timeout kills an exec: docs/sandboxes.md, "docker".
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import math
import os
import posixpath
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Self

from rath.backend.capabilities import Capabilities, IsolationLevel
from rath.backend.sandboxes._base import ToolFailure, closed_error
from rath.backend.sandboxes._hostdir import GUEST_WORKSPACE, HostDirSandbox
from rath.backend.sandboxes._process import (
    BACKGROUND_GRACE,
    BACKGROUND_NOTE,
    KILL_GRACE,
    CappedBuffer,
    Execution,
    ProcessOutput,
    output,
    timeout_failure,
)
from rath.backend.spec import BackendSandboxSpec
from rath.errors import ConfigError, SandboxError

if TYPE_CHECKING:
    from docker import APIClient, DockerClient
    from docker.models.containers import Container

DEFAULT_IMAGE = "python:3.11-slim"
LABEL = "rath.sandbox"
CONTAINER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_IDLE = ["/bin/sh", "-c", "while sleep 3600; do :; done"]
_RECORD_PID = 'echo $$ > "/tmp/.rath-$RATH_EXEC_ID.pid" 2>/dev/null; exec "$@"'
_KILL = (
    'p=$(cat "/tmp/.rath-$0.pid" 2>/dev/null); [ -n "$p" ] && kill -9 -- "-$p" 2>/dev/null; '
    "for f in /proc/[0-9]*/environ; do "
    'grep -qsF "RATH_EXEC_ID=$0" "$f" && d=${f%/environ} && kill -9 "${d#/proc/}" 2>/dev/null; '
    'done; rm -f "/tmp/.rath-$0.pid"; exit 0'
)


class DockerSandbox(HostDirSandbox):
    """A sandbox running commands and code in a container over a host workspace.

    Args:
        spec: The sandbox spec; ``working_dir`` must be an absolute path. ``image`` (default
            :data:`DEFAULT_IMAGE`; it needs ``/bin/sh`` and, for code, ``python3``) and
            ``limits`` apply. The image must already be on the Docker host: nothing is pulled.

    Raises:
        ConfigError: ``working_dir`` is missing or not absolute, or ``host_network`` is set.
        SandboxUnavailableError: On ``__aenter__`` or first use, when the ``docker`` SDK is
            not installed or no daemon answers (the message lists the backends available
            instead).
        SandboxError: On open, the image is missing or the daemon refuses the container.
    """

    name = "docker"
    capabilities = Capabilities(IsolationLevel.CONTAINER, True, True, True)
    guest_workspace = GUEST_WORKSPACE
    guest_path = CONTAINER_PATH
    api_timeout: ClassVar[float] = 60.0
    """Seconds an ordinary Docker API call may take (exec output streams are not bounded)."""

    def __init__(self, spec: BackendSandboxSpec) -> None:
        super().__init__(spec)
        if spec.host_network:
            raise ConfigError(
                "the docker sandbox always runs containers with --network none; "
                "drop host_network or use the 'bwrap' backend"
            )
        self.image = spec.image or DEFAULT_IMAGE
        self._client: DockerClient | None = None
        self._container: Container | None = None
        self._lock = asyncio.Lock()

    @classmethod
    def unavailable_reason(cls) -> str | None:
        """Why docker cannot run here (no SDK, no daemon answering), or ``None``."""
        if importlib.util.find_spec("docker") is None:
            return _NO_SDK
        try:
            _client(5.0).close()
        except SandboxError as exc:
            return f"no Docker daemon answers: {exc}"
        return None

    async def __aenter__(self) -> Self:
        await self._running_container()
        return self

    async def aclose(self) -> None:
        """Remove the container (killing whatever runs in it); the workspace stays. Idempotent.

        Raises:
            SandboxError: The daemon refused to remove the container.
        """
        self._closed = True
        async with self._lock:
            container, self._container = self._container, None
            client, self._client = self._client, None
        if container is not None:
            await asyncio.to_thread(_remove, container)
        if client is not None:
            client.close()

    def _python_argv(self) -> list[str]:
        return ["python3", "-I", "-"]

    async def _running_container(self) -> tuple[DockerClient, Container]:
        root = await self._workspace()
        async with self._lock:
            if self._closed:  # closed while this call waited for the lock
                raise closed_error(self.name)
            if self._client is None or self._container is None:
                await asyncio.to_thread(self._create, root)
            assert self._client is not None and self._container is not None
            return self._client, self._container

    def _create(self, root: str) -> None:
        """Create and start the container (runs in a thread; sets the client and container).

        The container is recorded before it starts, so ``aclose`` removes it even when this
        thread outlives a cancelled caller; on failure nothing is left behind.
        """
        self._client = _client(self.api_timeout)
        try:
            self._container = self._create_container(self._client, root)
            with _docker_errors():
                self._container.start()
        except BaseException:
            if self._container is not None:
                with contextlib.suppress(SandboxError):
                    _remove(self._container)
            self._client.close()
            self._client = self._container = None
            raise

    def _create_container(self, client: DockerClient, root: str) -> Container:
        import docker.errors
        from docker.types import Mount, Ulimit

        with _docker_errors():
            info = os.stat(root)
            limits = self.spec.limits
            file_size = limits.file_size_bytes
            try:
                return client.containers.create(
                    self.image,
                    _IDLE,
                    init=True,
                    user=f"{info.st_uid}:{info.st_gid}",
                    working_dir=GUEST_WORKSPACE,
                    mounts=[Mount(GUEST_WORKSPACE, root, type="bind")],
                    network_mode="none",
                    read_only=True,
                    tmpfs={"/tmp": f"rw,nosuid,nodev,mode=1777,size={limits.memory_mb}m"},
                    mem_limit=limits.memory_bytes,
                    memswap_limit=limits.memory_bytes,
                    pids_limit=limits.pids,
                    nano_cpus=int(limits.cpus * 1e9),
                    ulimits=[Ulimit(name="fsize", soft=file_size, hard=file_size)],
                    cap_drop=["ALL"],
                    security_opt=["no-new-privileges"],
                    labels={LABEL: self.name},
                    hostname="sandbox",
                )
            except docker.errors.ImageNotFound:
                raise SandboxError(
                    f"the image {self.image!r} is not on the Docker host; nothing is pulled "
                    f"automatically: run `docker pull {self.image}` (or build it), or set "
                    "BackendSandboxSpec.image"
                ) from None

    async def _execute(self, run: Execution) -> ProcessOutput:
        client, container = await self._running_container()
        api = client.api
        exec_id = uuid.uuid4().hex
        child_env = {**run.env, "RATH_EXEC_ID": exec_id}
        started = time.monotonic()

        def start() -> _ExecStream:
            with _docker_errors():
                created = api.exec_create(
                    container.id,
                    ["/bin/sh", "-c", _RECORD_PID, "rath-exec", *run.argv],
                    stdin=run.stdin is not None,
                    environment=child_env,
                    workdir=posixpath.normpath(posixpath.join(GUEST_WORKSPACE, run.cwd)),
                )
                handle = created["Id"]
                attached = api.exec_start(handle, socket=True)
                return _ExecStream(api, handle, attached, run.cap, run.timeout)

        stream = await asyncio.to_thread(start)
        pumping = asyncio.ensure_future(asyncio.to_thread(stream.pump, run.stdin))
        finished = False
        try:
            note = await self._supervise(stream, pumping, exec_id)
            exit_code = await self._exit_code(stream)
            finished = True
        finally:
            if not finished:
                await self._kill(exec_id)
            stream.close()
            await asyncio.wait({pumping}, timeout=KILL_GRACE)
        return output(exit_code, stream.stdout, stream.stderr, started, note)

    async def _supervise(
        self, stream: _ExecStream, pumping: asyncio.Future[None], exec_id: str
    ) -> str:
        """Wait for the output to end; kill on timeout or lingering background processes."""
        interval = 0.05
        while not pumping.done():
            remaining = stream.deadline - time.monotonic()
            if remaining <= 0:
                raise _timeout(stream.timeout)
            await asyncio.wait({pumping}, timeout=min(interval, remaining))
            interval = min(interval * 2, 1.0)
            if pumping.done() or await _inspect(stream, "Running"):
                continue
            done, _ = await asyncio.wait({pumping}, timeout=BACKGROUND_GRACE)
            if not done:
                await self._kill(exec_id)
                await asyncio.wait({pumping}, timeout=KILL_GRACE)
                return BACKGROUND_NOTE
        return ""

    async def _exit_code(self, stream: _ExecStream) -> int:
        """The exit code, once the process has exited (it may close its output earlier)."""
        while (await _inspect(stream, "Running")) is True:
            if time.monotonic() >= stream.deadline:
                raise _timeout(stream.timeout)
            await asyncio.sleep(0.05)
        code = await _inspect(stream, "ExitCode")
        return int(code) if code is not None else -9

    async def _kill(self, exec_id: str) -> None:
        """Kill the exec's process group and every process carrying its id (best effort)."""
        container, client = self._container, self._client
        if container is None or client is None:
            return
        api = client.api

        def kill() -> None:
            handle = api.exec_create(container.id, ["/bin/sh", "-c", _KILL, exec_id])["Id"]
            api.exec_start(handle)

        with contextlib.suppress(Exception):  # the container may be gone already
            await asyncio.to_thread(kill)


class _ExecStream:
    """A ``docker exec`` attach socket: feeds stdin, demultiplexes capped stdout and stderr."""

    def __init__(
        self, api: APIClient, handle: str, attached: Any, cap: int | None, timeout: float | None
    ) -> None:
        self.api = api
        self.handle = handle
        self.timeout = timeout
        self.deadline = math.inf if timeout is None else time.monotonic() + timeout
        self.stdout = CappedBuffer(cap)
        self.stderr = CappedBuffer(cap)
        self._attached = attached  # keeps the HTTP response (and so the socket) alive
        # A unix or plain TCP daemon gives a SocketIO around the socket; TLS the SSL socket.
        sock = attached if isinstance(attached, socket.socket) else getattr(attached, "_sock", None)
        if not isinstance(sock, socket.socket):
            raise SandboxError(f"unsupported Docker transport ({type(attached).__name__})")
        sock.settimeout(None)  # the client's API timeout must not cut a long command short
        self._sock = sock

    def pump(self, stdin_data: bytes | None) -> None:
        """Read frames until end-of-file (blocking; runs in a thread)."""
        if stdin_data is not None:
            threading.Thread(target=self._feed, args=(stdin_data,), daemon=True).start()
        pending = bytearray()
        while chunk := self._recv():
            pending += chunk
            while len(pending) >= 8:
                size = int.from_bytes(pending[4:8], "big")
                if len(pending) < 8 + size:
                    break
                target = self.stderr if pending[0] == 2 else self.stdout
                target.add(bytes(pending[8 : 8 + size]))
                del pending[: 8 + size]

    def close(self) -> None:
        """Shut the socket down; a blocked :meth:`pump` returns."""
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self._sock.close()

    def _recv(self) -> bytes:
        try:
            return self._sock.recv(65536)
        except OSError:  # shut down by close(), or the daemon went away
            return b""

    def _feed(self, data: bytes) -> None:
        with contextlib.suppress(OSError):  # the program may exit without reading stdin
            self._sock.sendall(data)
            self._sock.shutdown(socket.SHUT_WR)


_NO_SDK = "the docker SDK is not installed (pip install 'rath[docker]')"


def _client(timeout: float) -> DockerClient:
    """A client for the daemon ``DOCKER_HOST`` names (the default socket otherwise)."""
    import docker

    with _docker_errors():  # the client asks the daemon for its API version: a ping
        return docker.from_env(timeout=int(max(1, timeout)))


async def _inspect(stream: _ExecStream, key: str) -> Any:
    """One field of the exec's state (``Running``, ``ExitCode``)."""

    def inspect() -> Any:
        with _docker_errors():
            return stream.api.exec_inspect(stream.handle)[key]

    return await asyncio.to_thread(inspect)


def _remove(container: Container) -> None:
    import docker.errors

    with _docker_errors(), contextlib.suppress(docker.errors.NotFound):
        container.remove(force=True)


def _timeout(seconds: float | None) -> ToolFailure:
    return timeout_failure(seconds, "the command's processes were killed")


@contextlib.contextmanager
def _docker_errors() -> Iterator[None]:
    """Translate the SDK's errors (and ``requests``') into :class:`SandboxError`, once."""
    import docker.errors
    import requests

    try:
        yield
    except (docker.errors.DockerException, requests.RequestException) as exc:
        host = os.environ.get("DOCKER_HOST") or "the default socket"
        raise SandboxError(f"docker ({host}): {exc}") from exc
