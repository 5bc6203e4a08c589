"""``Placement``: where a session's tools run (a sandbox backend, its spec, a sandbox id)."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from rath.sandbox._spec import SandboxSpec

NO_SANDBOX = (
    'session has no sandbox backend; call session.to("local") (or another backend) before '
    "using workspace tools"
)


class Placement(BaseModel):
    """Where a session's tools run: a sandbox backend, its spec, and a stable sandbox id.

    The id names the workspace when the spec gives no ``working_dir``, so every session derived
    from this one (loop outputs, forks) shares one workspace. ``owner`` is the task queue of
    the worker that opened the sandbox (set by the first tool call): every later tool call of
    every session on this sandbox runs there.
    """

    model_config = ConfigDict(frozen=True)

    spec: SandboxSpec
    sandbox_id: UUID
    owner: str | None = None

    @property
    def backend(self) -> str:
        """The backend name, e.g. ``"local"``."""
        return self.spec.backend

    def resolved_spec(self, workspaces_dir: Path) -> SandboxSpec:
        """The spec, with its allocated workspace under ``workspaces_dir`` when it names none."""
        if self.spec.working_dir is not None:
            return self.spec
        workspace = workspaces_dir / self.sandbox_id.hex
        return self.spec.model_copy(update={"working_dir": str(workspace)})

    def describe(self) -> str:
        """``backend:working_dir`` (or ``backend:#<id>`` for an allocated workspace)."""
        where = self.spec.working_dir or f"#{self.sandbox_id.hex[:8]}"
        return f"{self.backend}:{where}"
