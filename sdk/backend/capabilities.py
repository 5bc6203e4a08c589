"""``Capabilities`` and ``IsolationLevel``: what a backend can do (docs/sandboxes.md)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class IsolationLevel(StrEnum):
    """How strongly a backend keeps work away from the host."""

    PROCESS = "process"
    NAMESPACE = "namespace"
    CONTAINER = "container"
    MICROVM = "microvm"
    VM = "vm"


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a backend can do, and how well it isolates."""

    isolation: IsolationLevel
    supports_command: bool
    supports_filesystem: bool
    supports_code_interpreter: bool
    cold_start_ms_p50: int | None = None
    max_sandboxes: int | None = None

    @property
    def supports_code(self) -> bool:
        """Rath's name for ``supports_code_interpreter``."""
        return self.supports_code_interpreter
