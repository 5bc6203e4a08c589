"""``AgentParam``: prompt, provider and memory, like ``nn.Parameter``. See docs/modules.md."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from rath.llm.provider import Provider
from rath.memory import MemorySpec, MemoryStore
from rath.session.session import Session

__all__ = ["AgentParam", "Provider"]


@dataclass(slots=True)
class AgentParam:
    """The "weights" of an agent: its prompt session, its provider and its memory."""

    agent_session: Session
    provider: Provider
    memory: MemoryStore | MemorySpec | None = None

    @property
    def data(self) -> Mapping[str, Any]:
        """A read-only view of the fields (``agent_session``, ``provider``, ``memory``)."""
        return MappingProxyType(
            {"agent_session": self.agent_session, "provider": self.provider, "memory": self.memory}
        )

    def __repr__(self) -> str:
        lines = [
            f"{type(self).__name__}(",
            f"  (agent_session): {indent_tail(repr(self.agent_session))}",
            f"  (provider): {self.provider!s}",
        ]
        if self.memory is not None:
            lines.append(f"  (memory): {indent_tail(repr(self.memory))}")
        lines.append(")")
        return "\n".join(lines)

    __str__ = __repr__


def indent_tail(text: str, spaces: int = 2) -> str:
    """``text`` with every line but the first indented (a child's repr, torch-style)."""
    first, *rest = text.split("\n")
    pad = " " * spaces
    return "\n".join([first, *(pad + line for line in rest)])
