"""Starting a durable ``forward`` from plain Python (the client side of ``rath.Forward``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from rath.budget import Budget
from rath.contracts.calls import run_id_for, slug
from rath.contracts.modules import encode_call, module_spec, register_workflow_class
from rath.contracts.queues import workflow_queue
from rath.contracts.runs import CODE_VERSION, FORWARD, ForwardInput
from rath.llm.provider import demo_fallback, provider_spec
from rath.runtime.launch import start_lazy_run
from rath.runtime.runtime import get_runtime
from rath.session.graph.kind import LineageKind
from rath.session.session import Session
from rath.settings import Settings
from rath.tools.agent_tools import agent_tool_set
from rath.utils.ids import new_id
from rath.utils.targets import class_target
from rath.utils.text import markdown_fields


class Forwardable(Protocol):
    """What starting a durable forward needs of a ``Workflow`` module."""

    _budget: Budget | None

    def named_workflows(self, prefix: str = "") -> Iterator[tuple[str, Any]]:
        """This module and every descendant."""
        ...


def run_forward(module: Forwardable, session: Session, *args: Any, **kwargs: Any) -> Session:
    """Start ``module.forward(session, ...)`` as a ``rath.Forward`` run; returns a lazy session.

    Raises:
        ConfigError: A constructor or call argument cannot be sent to a worker.
    """
    settings = Settings.from_env()
    name = type(module).__name__

    def ship(provider: Any) -> Any:
        return provider_spec(provider, settings)

    spec = module_spec(module, ship)
    call_args, call_kwargs = encode_call(args, kwargs, ship, f"{name}.forward", first=2)
    target = class_target(type(module))
    agents = [m for _, m in module.named_workflows() if getattr(m, "_is_agent", False)]
    if settings.embedded:  # the in-process worker runs it: it must have the class and tools
        register_workflow_class(type(module))
        for agent in agents:
            agent_tool_set(agent.tools)  # registers them with this process's workers
    out = Session(
        id=new_id(),
        parent_session_ids=(session.id,),
        lineage_kind=LineageKind.OP_WORKFLOW,
        lineage_operator=f"{name}.forward",
        sandbox=session.sandbox,
    )
    names = ", ".join(a.name for a in agents) or "none"
    models = ", ".join(f"{a.name} ({ship(a.agent.provider).label()})" for a in agents)

    def make_input() -> ForwardInput:
        return ForwardInput(
            module=spec,
            session=session.synchronize(),
            output_id=out.id,
            call_args=call_args,
            call_kwargs=call_kwargs,
            search_attributes=get_runtime(settings).search_attributes,  # known: connected
            demo_fallback=demo_fallback(settings),
            budget=module._budget,
            code_version=CODE_VERSION,
        )

    start_lazy_run(
        out,
        workflow=FORWARD.name,
        run_id=run_id_for(slug(name), out),
        agent=name,
        inputs=(session,),
        make_input=make_input,
        static_summary=f"{name} · agents: {names} · session {out.id.hex[:8]}",
        static_details=markdown_fields(
            ("workflow", f"{name} (`{target}`)"),
            ("agents", models or "none"),
            ("input session", session.id),
            ("output session", out.id),
        ),
        settings=settings,
        task_queue=workflow_queue(settings.task_queue, target),
    )
    return out
