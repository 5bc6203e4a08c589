"""``run_session_loop``: one agent pass over a user session. See docs/modules.md."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rath.budget import Budget, with_total_tokens
from rath.llm.chat_response import RathLLMStreamDelta
from rath.llm.provider import Provider
from rath.session._graph_mode import stamped_output
from rath.session.graph.kind import LineageKind
from rath.session.host import LoopRequest, Persist, current_host
from rath.session.session import Session


def run_session_loop(
    user_session: Session,
    agent_session: Session,
    *,
    agent_provider: Provider,
    # OpenRath's annotation, kept as text: rath.tools is a floor above this module.
    tools: list[FlowToolCall] | Sequence[Any] | None = None,  # type: ignore[name-defined]  # noqa: F821
    max_tool_rounds: int | None = None,
    agent_name: str = "agent",
    options: Any = None,
    compress_at_tokens: int | None = None,
    memory: Any = None,
    budget: Budget | None = None,
    tool_policy: Any = None,
    on_event: Callable[[RathLLMStreamDelta], None] | None = None,
    executor: Any = None,
    lazy: bool = True,
    persist: bool = False,
    persist_path: Path | None = None,
    sandbox_handle_id: str | None = None,
) -> Session:
    """Run the agent loop: LLM rounds with tool calls until the model stops calling tools.

    Raises:
        ConfigError: Invalid arguments (found before anything starts).
        PersistenceError: ``persist_path`` is taken by another session file (see
            :class:`~rath.session.persistence.SessionWriter`); nothing starts.
    """
    out = stamped_output(
        Session,
        user_session,
        agent_session,
        LineageKind.OP_SESSION_LOOP,
        "run_session_loop",
    )
    request = LoopRequest(
        user=user_session,
        agent=agent_session,
        provider=agent_provider,
        out=out,
        agent_name=agent_name,
        tools=tools,
        tool_policy=tool_policy,
        max_tool_rounds=max_tool_rounds,
        options=options,
        compress_at_tokens=compress_at_tokens,
        memory=memory,
        budget=with_total_tokens(budget, agent_provider.budget_total_tokens),
        on_event=on_event,
        executor=executor,
        lazy=lazy,
        persist=persisting(persist, persist_path, sandbox_handle_id),
    )
    current_host().run_loop(request)
    return out


def persisting(persist: bool, path: Path | None, sandbox_handle_id: str | None) -> Persist | None:
    """OpenRath's three persistence keywords as one value (``None``: no file)."""
    if not (persist or path):
        return None
    return Persist(path=path, sandbox_handle_id=sandbox_handle_id)
