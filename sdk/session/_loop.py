"""``run_session_loop``: one agent pass over a user session, as a durable run.

Called from plain Python it starts a :class:`~rath.workflows.session_loop.SessionLoopWorkflow`
through the background runtime and returns a lazy session at once; reading it waits. Lazy
inputs do not block the call: the run starts when they are ready, so ``agent2(agent1(s))``
returns immediately too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from temporalio import workflow

from rath._ids import new_id
from rath.errors import ConfigError, UserError
from rath.llm._provider import Provider
from rath.session._lineage import LineageKind
from rath.session._session import Session


def run_session_loop(
    user_session: Session,
    agent_session: Session,
    *,
    agent_provider: Provider,
    tools: Sequence[Any] | None = None,
    max_tool_rounds: int = 64,
    agent_name: str = "agent",
    options: Any = None,
    lazy: bool = True,
) -> Session:
    """Run the agent loop: LLM rounds with tool calls until the model stops calling tools.

    Args:
        user_session: The transcript to continue (the "tensor"); its sandbox runs the tools.
        agent_session: The agent's prompt rows (the "parameter"), sent before the transcript.
        agent_provider: Which model to call.
        tools: Extra tools; the six built-ins are always offered when the session is placed.
        max_tool_rounds: LLM calls allowed before the loop stops and marks the output
            ``loop.truncated``.
        agent_name: Names the run in the Temporal UI (workflow id and summaries).
        options: A ``LoopOptions`` for timeouts and retries (defaults are production values).
        lazy: Return at once (default) or wait for the run.

    Returns:
        The output session: the user rows plus this run's rows, parents
        ``(user_session.id, agent_session.id)``.

    Raises:
        ConfigError: Invalid arguments (found before anything starts).
    """
    from rath._runtime.providers import provider_spec
    from rath._runtime.runtime import RunHandle, get_runtime, run_workflow
    from rath._runtime.settings import Settings
    from rath.workflows.session_loop import LoopOptions, SessionLoopInput

    if tools:
        raise ConfigError(
            "custom tools are not supported yet; the six built-in tools are always available "
            "to a session placed with .to('local', spec=...)"
        )
    if max_tool_rounds < 1:
        raise ConfigError(f"max_tool_rounds must be at least 1, got {max_tool_rounds}")
    if workflow.in_workflow():
        raise UserError(
            "run_session_loop inside workflow code is not supported yet; call agents from "
            "plain Python"
        )
    loop_options = (options or LoopOptions()).model_copy(
        update={"max_tool_rounds": max_tool_rounds}
    )
    settings = Settings.from_env()
    spec = provider_spec(agent_provider, settings)
    out = Session(
        id=new_id(),
        parent_session_ids=(user_session.id, agent_session.id),
        lineage_kind=LineageKind.OP_SESSION_LOOP,
        lineage_operator="run_session_loop",
        sandbox=user_session.sandbox,
    )
    name = _slug(agent_name)
    workflow_id = f"rath-{name}-{out.id.hex[:12]}"
    waits = tuple(
        pending.wait
        for s in (user_session, agent_session)
        if (pending := s._pending) is not None and isinstance(pending, RunHandle)
    )

    def make_input() -> SessionLoopInput:
        return SessionLoopInput(
            user=user_session.synchronize(),
            agent=agent_session.synchronize(),
            agent_name=name,
            provider=spec,
            output_id=out.id,
            options=loop_options,
        )

    runtime = get_runtime(settings)
    future = runtime.submit(
        run_workflow(
            runtime,
            workflow="rath.SessionLoop",
            workflow_id=workflow_id,
            make_input=make_input,
            result_type=Session,
            wait_for=waits,
            static_summary=f"{name} · {spec.label()}",
        )
    )
    out.attach_pending(RunHandle(workflow_id, future))
    if not lazy:
        out.synchronize()
    return out


def _slug(name: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")
    return slug[:40] or "agent"
