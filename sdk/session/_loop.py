"""``run_session_loop``: one agent pass over a user session, as a durable run.

Called from plain Python it starts a :class:`~rath.workflows.session_loop.SessionLoopWorkflow`
through the background runtime and returns a lazy session at once; reading it waits. Lazy
inputs do not block the call: the run starts when they are ready, so ``agent2(agent1(s))``
returns immediately too. Called from a durable ``forward`` (workflow code) it schedules the
same workflow as a child, as a task of the parent, and returns a lazy session just the same.
"""

from __future__ import annotations

import concurrent.futures
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from temporalio import workflow
from temporalio.exceptions import ChildWorkflowError

from rath._ids import new_id
from rath.errors import ConfigError
from rath.llm._provider import Provider
from rath.session._lineage import LineageKind
from rath.session._session import Session

if TYPE_CHECKING:
    from rath.budget import Budget
    from rath.llm._provider import ProviderSpec
    from rath.llm._stream import RathLLMStreamDelta
    from rath.workflows._budget_steps import BudgetGate
    from rath.workflows._memory_steps import AgentMemory
    from rath.workflows._tool_steps import ToolSet
    from rath.workflows.session_loop import LoopOptions, SessionLoopInput


def run_session_loop(
    user_session: Session,
    agent_session: Session,
    *,
    agent_provider: Provider,
    tools: Sequence[Any] | None = None,
    max_tool_rounds: int = 64,
    agent_name: str = "agent",
    options: Any = None,
    compress_at_tokens: int | None = None,
    memory: AgentMemory | None = None,
    budget: Budget | None = None,
    tool_policy: Any = None,
    on_event: Callable[[RathLLMStreamDelta], None] | None = None,
    lazy: bool = True,
) -> Session:
    """Run the agent loop: LLM rounds with tool calls until the model stops calling tools.

    Args:
        user_session: The transcript to continue (the "tensor"); its sandbox runs the tools.
        agent_session: The agent's prompt rows (the "parameter"), sent before the transcript.
        agent_provider: Which model to call.
        tools: Extra tools: ``FlowToolCall`` classes or instances, ``@tool`` functions, and
            MCP servers' tools (``rath.tools.mcp``). The six built-ins are always offered
            when the session is placed on a sandbox.
        max_tool_rounds: LLM calls allowed before the loop stops and marks the output
            ``loop.truncated``.
        agent_name: Names the run in the Temporal UI (workflow id and summaries).
        options: A ``LoopOptions`` for timeouts and retries (defaults are production values).
        compress_at_tokens: Opt-in automatic compression: after a round whose context reached
            this many tokens, the transcript is replaced by one summary row (an LLM activity
            with the agent's prompt) and the loop goes on. The output is marked
            ``compression.auto`` with the count. ``None`` (default) never compresses.
        memory: Inject memories before the first round (and commit after the run); see
            ``Agent(memory=...)``.
        budget: Limits on this run's tokens, tool calls and time (inside a durable forward
            with a budget, the tree's are enforced too). Exceeding one ends the run with
            :class:`~rath.errors.BudgetExceededError`, which carries the transcript so far.
        tool_policy: ``{pattern: "allow" | "deny" | "ask"}`` (or a ``ToolPolicy``): ``ask``
            pauses the run until ``rath.approve``/``rath.deny`` answers (a timeout denies).
        on_event: Called with each :class:`~rath.llm.RathLLMStreamDelta` while the model
            writes (each round streams from the provider). It runs on a worker thread of
            Rath's background runtime, in order, one call at a time; the output session is
            ready only after every event was delivered. A ``retry`` event voids what earlier
            attempts of its round sent (see ``rath.streaming``). Only for runs started from
            plain Python: inside a durable ``forward`` it raises ``ConfigError``.
        lazy: Return at once (default) or wait for the run.

    Returns:
        The output session: the user rows plus this run's rows, parents
        ``(user_session.id, agent_session.id)``.

    Raises:
        ConfigError: Invalid arguments (found before anything starts).
    """
    from rath.tools._agent_tools import agent_tool_set

    tool_set = agent_tool_set(tools, tool_policy)
    if max_tool_rounds < 1:
        raise ConfigError(f"max_tool_rounds must be at least 1, got {max_tool_rounds}")
    if compress_at_tokens is not None and compress_at_tokens < 1:
        raise ConfigError(
            f"compress_at_tokens must be a positive token count or None, got {compress_at_tokens}"
        )
    from rath.workflows.session_loop import LoopOptions

    update: dict[str, Any] = {"max_tool_rounds": max_tool_rounds}
    if compress_at_tokens is not None:
        update["compress_at_tokens"] = compress_at_tokens
    loop_options = (options or LoopOptions()).model_copy(update=update)
    out = Session(
        id=new_id(),
        parent_session_ids=(user_session.id, agent_session.id),
        lineage_kind=LineageKind.OP_SESSION_LOOP,
        lineage_operator="run_session_loop",
        sandbox=user_session.sandbox,
    )
    call = _LoopCall(
        user=user_session,
        agent=agent_session,
        provider=agent_provider,
        name=slug(agent_name),
        options=loop_options,
        memory=memory,
        budget=budget,
        tools=tool_set,
        out=out,
        on_event=on_event,
    )
    (_start_child if workflow.in_workflow() else _start_run)(call)
    if not lazy and not workflow.in_workflow():
        out.synchronize()
    return out


@dataclass(frozen=True, slots=True)
class _LoopCall:
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

    @property
    def run_id(self) -> str:
        return f"rath-{self.name}-{self.out.id.hex[:12]}"

    def input(
        self, spec: ProviderSpec, budget: BudgetGate | None, *, stream: bool = False
    ) -> SessionLoopInput:
        """The workflow input (the inputs must be ready)."""
        from rath.llm._stream import StreamOptions
        from rath.workflows.session_loop import SessionLoopInput

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
        )


def _start_run(call: _LoopCall) -> None:
    """Client side: start a top-level run on the background runtime."""
    from rath._runtime.providers import provider_spec
    from rath._runtime.runtime import start_lazy_run
    from rath.session._events import follow_started_run
    from rath.settings import Settings
    from rath.workflows._budget_steps import BudgetGate

    settings = Settings.from_env()
    spec = provider_spec(call.provider, settings)
    gate = None if call.budget is None else BudgetGate(own=call.budget)
    streaming = call.on_event is not None
    # Resolved once the server has the run: a run that never started has nothing to follow.
    started: concurrent.futures.Future[None] = concurrent.futures.Future()

    def make_input() -> SessionLoopInput:
        return call.input(spec, gate, stream=streaming)

    start_lazy_run(
        call.out,
        workflow="rath.SessionLoop",
        run_id=call.run_id,
        agent=call.name,
        inputs=(call.user, call.agent),
        make_input=make_input,
        static_summary=f"{call.name} · {spec.label()} · session {call.out.id.hex[:8]}",
        settings=settings,
        on_budget_exceeded=call.provider.on_budget_exceeded,
        on_started=(lambda: started.set_result(None)) if streaming else None,
    )
    if call.on_event is not None:
        follow_started_run(call.out, call.on_event, started)


def _start_child(call: _LoopCall) -> None:
    """Workflow side: schedule a child workflow as a task of the durable forward."""
    from rath._runtime.failures import describe_failure
    from rath._runtime.providers import spec_from_provider
    from rath._runtime.scope import current_scope
    from rath.errors import BudgetExceededError, RunFailedError
    from rath.workflows._budget_steps import exceeded_session

    name, run_id, out, user = call.name, call.run_id, call.out, call.user
    if call.on_event is not None:
        raise ConfigError(
            f"agent {name!r}: on_event cannot reach your process from inside a durable "
            "forward; call module.forward(session) from plain Python instead (each agent a "
            "top-level run that streams), or follow a run with rath.streaming.follow_events"
        )
    scope = current_scope()
    spec = spec_from_provider(call.provider, demo_fallback=scope.demo_fallback)

    async def run() -> Session:
        await user.ready()
        await call.agent.ready()
        scope.refuse_if_over_budget(f"agent {name!r}", user)
        try:
            result: Session = await workflow.execute_child_workflow(
                "rath.SessionLoop",
                call.input(spec, scope.budget_gate(call.budget)),
                id=run_id,
                result_type=Session,
                static_summary=f"{name} · {spec.label()} · session {out.id.hex[:8]}",
                search_attributes=scope.search_attributes(out.id, name),
            )
        except ChildWorkflowError as exc:
            over = exceeded_session(exc)
            if over is not None:
                message, partial = over
                scope.child_finished(run_id, partial)
                scope.record(partial, agent=name, run_id=run_id)
                raise BudgetExceededError(
                    message, workflow_id=run_id, session=partial, reason=_reason(partial)
                ) from exc
            raise RunFailedError(
                f"agent {name!r} (run {run_id!r}) failed: {describe_failure(exc.cause or exc)}",
                workflow_id=run_id,
            ) from exc
        scope.child_finished(run_id, result)
        scope.record(result, agent=name, run_id=run_id)
        return result

    out.attach_pending(scope.spawn(run_id, run()))
    scope.record(out, agent=name, run_id=run_id, inputs=(user, call.agent))


def _reason(session: Session) -> str:
    return str(dict(session.lineage_extras).get("budget.exceeded", "budget exceeded"))


def slug(name: str) -> str:
    """``name`` made safe for a workflow id (at most 40 characters)."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")
    return slug[:40] or "agent"
