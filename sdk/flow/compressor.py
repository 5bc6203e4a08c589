"""``Compressor``: a module that shortens a session to one summary row (an LLM activity).

OpenRath's module path ``rath.flow.compressor``.
"""

from __future__ import annotations

from collections.abc import Callable

from rath.flow.agent_param import AgentParam
from rath.flow.workflow import Workflow
from rath.llm.chat_response import RathLLMStreamDelta
from rath.llm.provider import Provider
from rath.session.compress import run_session_compress
from rath.session.session import Session

__all__ = ["Compressor"]


class Compressor(Workflow):
    """``Compressor(instruction, provider)(session)`` -> a lazy session with one USER row."""

    _runs_itself = True

    def __init__(
        self,
        compress_instruction: str,
        provider: Provider,
        *,
        on_event: Callable[[RathLLMStreamDelta], None] | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__()
        self.agent = AgentParam(Session.from_agent_prompt(compress_instruction), provider)
        self.on_event = on_event
        self._name = name

    def _on_registered(self, name: str) -> None:
        self._name = self._name or name

    def forward(self, session: Session) -> Session:
        """Compress ``session`` (returns at once; the result is lazy)."""
        return run_session_compress(
            session,
            self.agent.agent_session,
            agent_provider=self.agent.provider,
            agent_name=self._name or "compressor",
            on_event=self.on_event,
        )
