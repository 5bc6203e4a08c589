"""What a host starts: an agent loop or a compression, resolved from the starter's request.

The hosts (the client runtime, a durable forward's scope) call these; see docs/design.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rath.budget import Budget
from rath.contracts.budget import BudgetGate
from rath.contracts.catalog import ToolSet
from rath.contracts.llm import CompressArgs, ExecutorRef
from rath.contracts.memory import AgentMemory
from rath.contracts.runs import CODE_VERSION, LoopOptions, SessionLoopInput
from rath.errors import ConfigError
from rath.llm.chat_response import RathLLMStreamDelta, add_usage
from rath.llm.provider import Provider, ProviderSpec
from rath.llm.stream import StreamOptions
from rath.session.deferred import Deferred
from rath.session.host import CompressJob, LoopRequest, Persist
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


def loop_call(request: LoopRequest, tools: ToolSet | None) -> LoopCall:
    """``request`` resolved (``tools`` are its resolved ``tools=``/``tool_policy=``).

    Raises:
        ConfigError: A bad ``max_tool_rounds`` or ``compress_at_tokens``.
    """
    base_options = request.options or LoopOptions()
    rounds = request.max_tool_rounds
    if rounds is None:
        rounds = base_options.max_tool_rounds
    if rounds < 1:
        raise ConfigError(f"max_tool_rounds must be at least 1, got {rounds}")
    at_tokens = request.compress_at_tokens
    if at_tokens is not None and at_tokens < 1:
        raise ConfigError(
            f"compress_at_tokens must be a positive token count or None, got {at_tokens}"
        )
    update: dict[str, Any] = {"max_tool_rounds": rounds}
    if at_tokens is not None:
        update["compress_at_tokens"] = at_tokens
    return LoopCall(
        user=request.user,
        agent=request.agent,
        provider=request.provider,
        name=slug(request.agent_name),
        options=base_options.model_copy(update=update),
        memory=request.memory,
        budget=request.budget,
        tools=tools,
        out=request.out,
        on_event=request.on_event,
        executor=request.executor,
    )


def refused_streaming_executor(request: LoopRequest) -> bool:
    """``executor=`` with ``on_event=``: make the output raise when read (as OpenRath did)."""
    if request.executor is None or request.on_event is None:
        return False
    request.out.attach_pending(Deferred((), _refuse_streaming_executor))
    return True


def _refuse_streaming_executor() -> Session:
    # Raised when the output is read, as OpenRath did (its tests read it to get the error).
    raise ConfigError(
        "on_event with a custom executor is not supported: stream with "
        "rath.session.loop.StreamingExecutor(client, on_event) as the executor instead"
    )


def refuse_persist_in_forward(persist: Persist | None) -> None:
    """Inside a durable forward, ``persist=`` cannot write a client file: say so.

    Raises:
        ConfigError: ``persist`` or ``persist_path`` was given.
    """
    if persist is not None:
        raise ConfigError(
            "persist= writes a file on the client: inside a durable forward every agent "
            "run is in the session catalog already (rath.session.persistence.load_session)"
        )


def compress_run_id(job: CompressJob) -> str:
    """The compression's run (or activity task) id."""
    return run_id_for(slug(job.name), job.out)


def compress_args(
    job: CompressJob, spec: ProviderSpec, executor: ExecutorRef | None = None
) -> CompressArgs:
    """The compress activity's input (the inputs must be ready)."""
    return CompressArgs(
        agent_name=slug(job.name),
        provider=spec,
        system=job.agent.synchronize().table,
        transcript=job.user.synchronize().table,
        instruction=job.instruction,
        executor=executor,
    )


def compress_summary(job: CompressJob, spec: ProviderSpec) -> str:
    """The compression run's static summary in the Web UI."""
    return f"{slug(job.name)} · compress · {spec.label()} · session {job.out.id.hex[:8]}"


def compress_details(job: CompressJob, spec: ProviderSpec) -> str:
    """The compression run's static details in the Web UI."""
    instruction = preview(job.instruction, 160) if job.instruction else "(default)"
    return markdown_fields(
        ("agent", slug(job.name)),
        ("model", spec.label()),
        ("prompt", _prompt_head(job.agent)),
        ("instruction", instruction),
        ("input session", job.user.id),
        ("output session", job.out.id),
    )


def compress_shell(job: CompressJob) -> Session:
    """``job.out`` carrying the summed usage of ``job.usage_from`` (which must be ready)."""
    usage = None
    for source in job.usage_from:
        usage = add_usage(usage, source.usage)
    out: Session = job.out.model_copy(update={"usage": usage})
    return out


def _prompt_head(agent: Session) -> str:
    """The head of an agent session's first row, or ``(stored)`` when its rows are not inline."""
    rows = agent.table.inline_rows() or ()
    prompt = next((str(r.payload.get("content") or "") for r in rows), "")
    return preview(prompt, 160) if prompt else "(stored)"
