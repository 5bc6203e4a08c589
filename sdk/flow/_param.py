"""``AgentParam``: an agent's prompt session and provider, registered like ``nn.Parameter``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from rath.llm._provider import Provider
from rath.session._session import Session


@dataclass(slots=True)
class AgentParam:
    """The "weights" of an agent: its prompt session and its provider.

    Only ``AgentParam`` values are registered by a :class:`~rath.flow.Workflow` on attribute
    assignment, walked by ``named_agents()`` and saved by ``state_dict()`` — temporaries stay
    out of a workflow's state, as with ``nn.Parameter``.
    """

    agent_session: Session
    provider: Provider

    @property
    def data(self) -> Mapping[str, Any]:
        """A read-only view of the fields."""
        return MappingProxyType({"agent_session": self.agent_session, "provider": self.provider})

    def __repr__(self) -> str:
        rows = self.agent_session.table.inline_rows()
        prompt = rows[0].payload.get("content", "") if rows else ""
        prompt = prompt if len(prompt) <= 60 else prompt[:57] + "..."
        return f"AgentParam(prompt={prompt!r}, provider={self.provider})"
