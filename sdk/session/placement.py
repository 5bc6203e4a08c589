"""``Placement``: where a session's tools run (a sandbox backend, its spec, a sandbox id)."""

from __future__ import annotations

import contextlib
import dataclasses
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from rath.backend.spec import DEFAULT_COMMAND_TIMEOUT, BackendSandboxSpec
from rath.errors import ConfigError, RunError
from rath.session.host import current_host
from rath.utils.ids import new_id
from rath.utils.in_workflow import in_workflow

NO_SANDBOX = (
    'session has no sandbox backend; call session.to("local") (or another backend) before '
    "using workspace tools"
)


class Placement(BaseModel):
    """Where a session's tools run: a sandbox backend, its spec, and a stable sandbox id."""

    model_config = ConfigDict(frozen=True)

    spec: BackendSandboxSpec
    sandbox_id: UUID
    owner: str | None = None

    @property
    def backend(self) -> str:
        """The backend name, e.g. ``"local"``."""
        return self.spec.backend

    def resolved_spec(self, workspaces_dir: Path) -> BackendSandboxSpec:
        """The spec, with its allocated workspace under ``workspaces_dir`` when it names none."""
        if self.spec.working_dir is not None:
            return self.spec
        workspace = workspaces_dir / self.sandbox_id.hex
        return dataclasses.replace(self.spec, working_dir=str(workspace))

    def describe(self) -> str:
        """``backend:working_dir`` (or ``backend:#<id>`` for an allocated workspace)."""
        where = self.spec.working_dir or f"#{self.sandbox_id.hex[:8]}"
        return f"{self.backend}:{where}"


class Placeable:
    """The sandbox half of :class:`~rath.session.Session`: placing, holding, handles (a mixin)."""

    if TYPE_CHECKING:
        sandbox: Placement | None
        _handle: Any
        _cm_depth: int

        id: UUID

        @property
        def sandbox_backend(self) -> str | None:
            """The placement's backend name."""

        def synchronize(self) -> Any:
            """Wait for a lazy session."""

    def _place(self, handle: Any, backend: str | None) -> None:
        """Bind ``handle``, or place the session on ``backend`` (constructor arguments)."""
        on = handle.backend.name if handle is not None else self.sandbox_backend
        if backend is not None and on not in (None, backend):
            raise ValueError(f"sandbox_backend {backend!r} does not match the sandbox's {on!r}")
        if handle is not None:
            self.bind_sandbox(handle)
        elif backend is not None and self.sandbox is None:
            self.to(backend)

    def to(
        self, backend: str = "local", *, spec: BackendSandboxSpec | str | Path | None = None
    ) -> Self:
        """Place this session's tools on a sandbox backend; returns ``self``.

        Raises:
            SandboxUnavailableError: ``backend`` is not registered; the message lists the
                registered backends.
        """
        current_host().check_backend(backend)
        sandbox_spec = _sandbox_spec(backend, spec)
        self.close_sandbox()
        self.sandbox = Placement(spec=sandbox_spec, sandbox_id=new_id())
        current_host().hold(self)
        return self

    def release(self) -> bool:
        """Stop holding this session's sandbox; the last session to let go closes it."""
        if self.sandbox is None or in_workflow():
            return False
        with contextlib.suppress(RunError):  # a failed run still let go of its sandbox
            self.synchronize()
        return current_host().release(self.sandbox, str(self.id))

    def require_sandbox(self) -> Any:
        """An open handle of the backend plane on this session's sandbox (OpenRath's).

        Raises:
            ConfigError: The session has no sandbox (``.to(...)`` first), or its handle was
                closed (both also ``RuntimeError``).
        """
        handle = self._handle
        if handle is not None and handle.closed:
            raise ConfigError(
                "session sandbox is closed; bind an open one with session.bind_sandbox(...) "
                "or call session.close_sandbox() first"
            )
        if self.sandbox is None:
            raise ConfigError(NO_SANDBOX)
        if handle is None:
            handle = current_host().open_handle(self.sandbox).acquire()
            self._handle = handle
        return handle

    def bind_sandbox(self, sandbox: Any) -> Self:
        """Hold ``sandbox`` (a plane handle) as this session's sandbox; returns ``self``."""
        if sandbox is self._handle:
            return self
        if sandbox.closed:
            self.close_sandbox()
            self._handle = sandbox
            return self
        held = sandbox.acquire()
        try:
            self.to(sandbox.backend.name, spec=Path(sandbox.handle))  # releases the previous
        except BaseException:
            held.release()
            raise
        self._handle = held
        return self

    def close_sandbox(self) -> Self:
        """Release this session's handle and its hold on the sandbox; returns ``self``."""
        handle, self._handle = self._handle, None
        if handle is not None:
            handle.release()
        self.release()
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        """``session.sandbox = handle`` binds a plane handle (OpenRath's assignment)."""
        if name == "sandbox" and value is not None and not isinstance(value, Placement):
            self.bind_sandbox(value)
            return
        super().__setattr__(name, value)

    def __enter__(self) -> Self:
        """Open the sandbox handle on the outermost ``with`` (a placed session, client-side)."""
        if self._cm_depth == 0 and self.sandbox is not None and not in_workflow():
            if self._handle is not None and self._handle.closed:
                self._handle = None  # someone else closed it: open a new one
            self.require_sandbox()
        self._cm_depth += 1
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the handle and release the sandbox on leaving the outermost ``with``."""
        if self._cm_depth == 0:
            return  # an exit without an enter
        self._cm_depth -= 1
        if self._cm_depth == 0:
            self.close_sandbox()


def _sandbox_spec(backend: str, spec: BackendSandboxSpec | str | Path | None) -> BackendSandboxSpec:
    """The placement's spec for ``.to(backend, spec=...)`` (agents' commands default to 60 s)."""
    if spec is None or isinstance(spec, str | Path):
        spec = BackendSandboxSpec(working_dir=_workspace_path(spec))
    elif not isinstance(spec, BackendSandboxSpec):
        raise ConfigError(
            f"sandbox spec {spec!r} is not a BackendSandboxSpec: pass a "
            "rath.backend.BackendSandboxSpec, a workspace directory or None"
        )
    return dataclasses.replace(
        spec,
        backend=backend,
        working_dir=_workspace_path(spec.working_dir),
        timeout=spec.timeout or timedelta(seconds=DEFAULT_COMMAND_TIMEOUT),
    )


def _workspace_path(spec: str | Path | None) -> str | None:
    if spec is None:
        return None
    path = Path(spec).expanduser()
    if in_workflow():  # no file system here: the worker checks when it opens the sandbox
        if not path.is_absolute():
            raise ConfigError(
                f"sandbox spec {str(spec)!r} is relative; inside workflow code pass an absolute "
                "workspace path (the worker's current directory is not yours)"
            )
        return str(path)
    path = path if path.is_absolute() else path.resolve()
    if path.exists() and not path.is_dir():
        raise ConfigError(
            f"sandbox workspace {str(path)!r} is a file, not a directory: pass a directory "
            "(it is created if missing)"
        )
    return str(path)
