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
    """``Compressor(instruction, provider)(session)`` -> a lazy session with one USER row.

    As in OpenRath, ``compress_instruction`` becomes the compressor's system prompt, and the
    built-in instruction is the final user message. Inside a durable ``forward`` it is an
    activity of the parent run; from plain Python it is a small ``rath.Compress`` run.

    Args:
        compress_instruction: The compressor's system prompt.
        provider: Which model writes the summary.
        on_event: Stream the summary (OpenRath's): from plain Python each
            :class:`~rath.llm.RathLLMStreamDelta` is passed to it, in order, on a thread of
            this process, before the output is ready (the call then runs in this process
            through the provider's synchronous streaming client, as
            ``run_session_compress(on_event=...)``). Inside a durable ``forward`` the callback
            cannot be reached and the call raises ``ConfigError``, as an ``Agent``'s does.
        name: Names the activity or run in the Temporal UI (default: the attribute name).
    """

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
