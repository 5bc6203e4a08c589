"""The backends the shared sandbox suite runs against, and how each sees its workspace."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rath.backend import BackendSandboxSpec

BACKENDS = ("local", "bwrap", "docker")
ISOLATION = {"local": "process", "bwrap": "namespace", "docker": "container"}


@dataclass(frozen=True)
class Backend:
    """A backend under test: its name and the spec fields it needs (the docker image)."""

    name: str
    fields: dict[str, Any] = field(default_factory=dict)

    @property
    def isolating(self) -> bool:
        return self.name != "local"

    def spec(self, workspace: Path, **fields: Any) -> BackendSandboxSpec:
        return BackendSandboxSpec(
            backend=self.name, working_dir=str(workspace), **{**self.fields, **fields}
        )

    def inside(self, workspace: Path) -> str:
        """The workspace path as commands in the sandbox see it."""
        return str(workspace.resolve()) if self.name == "local" else "/workspace"
