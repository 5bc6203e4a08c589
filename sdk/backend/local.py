"""The backends shipped: ``local``, ``bwrap``, ``docker``, ``opensandbox``, over Rath's sandboxes.

See docs/sandboxes.md, "Where the code is".
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from pathlib import Path
from typing import ClassVar

from rath.backend._dispatch import Target, dispatch
from rath.backend._loop import run
from rath.backend.abc import Backend, BackendSandbox
from rath.backend.capabilities import Capabilities
from rath.backend.results import ToolExecutionFailure, ToolResult
from rath.backend.sandboxes import (
    BwrapSandbox,
    DockerSandbox,
    LocalSandbox,
    OpenSandboxSandbox,
    SandboxBackend,
    open_sandbox,
)
from rath.backend.sandboxes.opensandbox import GUEST_WORKSPACE, ID_FILE
from rath.backend.spec import BackendSandboxSpec
from rath.backend.tool_types import BackendTool


class HostDirBackend(Backend):
    """A backend whose sandboxes are :mod:`rath.backend.sandboxes` sandboxes on a host directory."""

    sandbox_class: ClassVar[type[SandboxBackend]] = LocalSandbox

    @property
    def _boxes(self) -> dict[int, Target]:
        # Made on first use, so a subclass whose __init__ skips super().__init__() still works.
        boxes: dict[int, Target] = self.__dict__.setdefault("_opened_boxes", {})
        return boxes

    @classmethod
    def shown_root(cls, root: Path) -> str:
        """The directory listed paths are under: the host directory itself."""
        return str(root)

    @classmethod
    def is_available(cls) -> bool:
        """Whether the Rath sandbox behind it can run here (it may probe a binary)."""
        return cls.sandbox_class.unavailable_reason() is None

    @classmethod
    def capabilities(cls) -> Capabilities:
        """The Rath sandbox's capabilities (one class for both)."""
        return dataclasses.replace(cls.sandbox_class.capabilities, cold_start_ms_p50=10)

    async def _aopen(self, spec: BackendSandboxSpec) -> BackendSandbox:
        owned = spec.working_dir is None
        root = Path(spec.working_dir or tempfile.mkdtemp(prefix="rath-local-")).resolve()
        root.mkdir(parents=True, exist_ok=True)
        timeout = None if spec.timeout is None else spec.timeout.total_seconds()
        box = open_sandbox(dataclasses.replace(spec, backend=self.name, working_dir=str(root)))
        await box.__aenter__()
        sandbox = BackendSandbox(backend=self, handle=str(root), spec=spec)
        self._boxes[id(sandbox)] = Target(box, self.shown_root(root), timeout, root, owned)
        return sandbox

    async def _aclose(self, sandbox: BackendSandbox) -> None:
        opened = self._boxes.pop(id(sandbox), None)
        if opened is None:
            return
        await opened.box.aclose()
        if opened.owned:
            shutil.rmtree(opened.root, ignore_errors=True)

    async def _adispatch(self, sandbox: BackendSandbox, call: BackendTool) -> ToolResult | bool:
        opened = self._boxes.get(id(sandbox))
        if opened is None:
            return ToolExecutionFailure("sandbox_closed", f"sandbox {sandbox.handle!r} is closed")
        return await dispatch(opened, call)


class LocalBackend(HostDirBackend):
    """Host processes in a working directory (OpenRath's ``local``)."""

    name = "local"


class BwrapBackend(HostDirBackend):
    """Commands and code under bubblewrap (needs ``bwrap``)."""

    name = "bwrap"

    sandbox_class = BwrapSandbox


class DockerBackend(HostDirBackend):
    """Commands and code in a locked-down container (needs the Docker daemon and SDK)."""

    name = "docker"

    sandbox_class = DockerSandbox


class OpenSandboxBackend(HostDirBackend):
    """A container on an OpenSandbox server (``OPEN_SANDBOX_DOMAIN``; the SDK extra).

    The working directory stays on this host and holds only the remote sandbox's id; files
    live in the sandbox's ``/workspace``, which listings show.
    """

    name = "opensandbox"

    sandbox_class = OpenSandboxSandbox

    @classmethod
    def shown_root(cls, root: Path) -> str:
        """The sandbox's own workspace."""
        return GUEST_WORKSPACE

    async def _aclose(self, sandbox: BackendSandbox) -> None:
        """Kill a sandbox this plane made; only let go of one on a given working directory.

        A given working directory is a session's workspace (``flow_tool_*``, ``attach`` with a
        spec): its sandbox holds that session's files, and the session's worker (or a later
        handle) reattaches to it, so it must outlive this handle.
        """
        opened = self._boxes.get(id(sandbox))
        if opened is None or opened.owned:
            await super()._aclose(sandbox)
            return
        del self._boxes[id(sandbox)]
        assert isinstance(opened.box, OpenSandboxSandbox)
        await opened.box.detach()

    def attach(self, remote_id: str, *, spec: BackendSandboxSpec | None = None) -> BackendSandbox:
        """Reconnect to the running OpenSandbox sandbox ``remote_id`` (OpenRath's ``attach``)."""
        return self._track(run(self._aattach(remote_id, spec or BackendSandboxSpec())))

    async def _aattach(self, remote_id: str, spec: BackendSandboxSpec) -> BackendSandbox:
        root = Path(spec.working_dir or tempfile.mkdtemp(prefix="rath-opensandbox-")).resolve()
        root.mkdir(parents=True, exist_ok=True)
        (root / ID_FILE).write_text(remote_id)
        sandbox = await self._aopen(dataclasses.replace(spec, working_dir=str(root)))
        if spec.working_dir is None:
            self._boxes[id(sandbox)].owned = True
        return sandbox
