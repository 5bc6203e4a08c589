"""What a session operation asks to be run: an agent loop or a compression, fully resolved.

:func:`~rath.session.run_session_loop` and the compressions describe their work as a
:class:`LoopCall` or :class:`CompressJob`; the host of the moment runs it: the client runtime
as a top-level run, or a durable forward's scope as a child workflow or activity.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rath.budget import Budget
from rath.contracts import (
    CODE_VERSION,
    AgentMemory,
    BudgetGate,
    CompressArgs,
    ExecutorRef,
    LoopOptions,
    SessionLoopInput,
    ToolSet,
)
from rath.llm.chat_response import RathLLMStreamDelta, add_usage
from rath.llm.provider import Provider, ProviderSpec
from rath.llm.stream import StreamOptions
from rath.session.session import Session
from rath.utils.text import markdown_fields, preview


def slug(name: str) -> str:
    """``name`` made safe for a workflow id (at most 40 characters)."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")
    return slug[:40] or "agent"


def run_id_for(name: str, out: Session) -> str:
    """The workflow id of the run (or task) producing ``out``: ``rath-<name>-<id prefix>``."""
    return f"rath-{name}-{out.id.hex[:12]}"


@dataclass(frozen=True, slots=True)
class LoopCall:
    """One agent run to start: what :func:`run_session_loop` was given, resolved."""

    user: Session
    agent: Session
    provider: Provider
    name: str
    options: LoopOptions
    memory: AgentMemory | None
    budget: Budget | None
    tools: ToolSet | None
    out: Session
    on_event: Callable[[RathLLMStreamDelta], None] | None
    executor: Any = None
    """OpenRath's loop executor (``executor=``): it answers instead of the provider."""

    @property
    def run_id(self) -> str:
        """The run's workflow id."""
        return run_id_for(self.name, self.out)

    def summary(self, spec: ProviderSpec) -> str:
        """The run's static summary in the Web UI."""
        return f"{self.name} · {spec.label()} · session {self.out.id.hex[:8]}"

    def details(self, spec: ProviderSpec) -> str:
        """The run's static details in the Web UI: agent, model, prompt head, sessions."""
        return markdown_fields(
            ("agent", self.name),
            ("model", spec.label()),
            ("prompt", _prompt_head(self.agent)),
            ("input session", self.user.id),
            ("output session", self.out.id),
        )

    def input(
        self,
        spec: ProviderSpec,
        budget: BudgetGate | None,
        *,
        stream: bool = False,
        executor: ExecutorRef | None = None,
    ) -> SessionLoopInput:
        """The workflow input (the inputs must be ready)."""
        return SessionLoopInput(
            user=self.user.synchronize(),
            agent=self.agent.synchronize(),
            agent_name=self.name,
            provider=spec,
            output_id=self.out.id,
            options=self.options,
            memory=self.memory,
            budget=budget,
            tools=self.tools,
            stream=StreamOptions() if stream else None,
            executor=executor,
            code_version=CODE_VERSION,
        )


@dataclass(frozen=True, slots=True)
class CompressJob:
    """One compression to start (``run_session_compress`` or a ``summarize`` merge)."""

    user: Session
    agent: Session
    provider: Provider
    instruction: str | None
    name: str
    out: Session
    inputs: tuple[Session, ...]
    usage_from: tuple[Session, ...] = ()
    executor: Any = None
    """OpenRath's loop executor (``executor=``): it writes the summary instead of the provider."""

    @property
    def run_id(self) -> str:
        """The run's (or the activity task's) id."""
        return run_id_for(self.name, self.out)

    def args(self, spec: ProviderSpec, executor: ExecutorRef | None = None) -> CompressArgs:
        """The activity input (the inputs must be ready)."""
        return CompressArgs(
            agent_name=self.name,
            provider=spec,
            system=self.agent.synchronize().table,
            transcript=self.user.synchronize().table,
            instruction=self.instruction,
            executor=executor,
        )

    def summary(self, spec: ProviderSpec) -> str:
        """The run's static summary in the Web UI."""
        return f"{self.name} · compress · {spec.label()} · session {self.out.id.hex[:8]}"

    def details(self, spec: ProviderSpec) -> str:
        """The run's static details in the Web UI: agent, model, instruction, sessions."""
        return markdown_fields(
            ("agent", self.name),
            ("model", spec.label()),
            ("prompt", _prompt_head(self.agent)),
            ("instruction", preview(self.instruction, 160) if self.instruction else "(default)"),
            ("input session", self.user.id),
            ("output session", self.out.id),
        )

    def shell(self) -> Session:
        """``out`` carrying the summed usage of ``usage_from`` (which must be ready)."""
        usage = None
        for source in self.usage_from:
            usage = add_usage(usage, source.usage)
        return self.out.model_copy(update={"usage": usage})


def _prompt_head(agent: Session) -> str:
    """The head of an agent session's first row, or ``(stored)`` when its rows are not inline."""
    rows = agent.table.inline_rows() or ()
    prompt = next((str(r.payload.get("content") or "") for r in rows), "")
    return preview(prompt, 160) if prompt else "(stored)"
