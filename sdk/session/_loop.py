"""``run_session_loop``: one agent pass over a user session, started by the session's host.

From plain Python the client runtime starts a ``rath.SessionLoop`` run; from a durable
``forward`` the run's scope schedules it as a child. Either way the output is lazy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rath.budget import Budget, with_total_tokens
from rath.llm.chat_response import RathLLMStreamDelta
from rath.llm.provider import Provider
from rath.session._graph_mode import stamped
from rath.session.graph.kind import LineageKind
from rath.session.host import LoopRequest, Persist, current_host
from rath.session.session import Session
from rath.utils.ids import new_id


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

    Args:
        user_session: The transcript to continue (the "tensor"); its sandbox runs the tools.
        agent_session: The agent's prompt rows (the "parameter"), sent before the transcript.
        agent_provider: Which model to call.
        tools: Extra tools: ``FlowToolCall`` classes or instances, ``@tool`` functions, and
            MCP servers' tools (``rath.tools.mcp``). The six built-ins are always offered
            when the session is placed on a sandbox.
        max_tool_rounds: LLM calls allowed before the loop stops and marks the output
            ``loop.truncated``. ``None`` (default) takes ``options.max_tool_rounds`` (64
            unless the options set it).
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
        executor: OpenRath's :class:`~rath.session.SessionLoopExecutor`: each round's request
            goes to its ``complete`` (or ``acomplete``) instead of the provider, and each tool
            call to its ``dispatch_tool`` (or ``adispatch_tool``) with the tool object. It
            lives in this process, so the run's model and tool calls are activities on this
            process's own task queue: the run is durable while this process lives. Not with
            ``on_event`` (the output then raises ``ConfigError``, a ``ValueError``, when
            read), and not inside a durable ``forward``.
        lazy: Return at once (default) or wait for the run.
        persist: Also write OpenRath's session file (``<RATH_HOME>/sessions/<id>.jsonl``):
            the header now, as ``<id>.jsonl.__partial__``, then the transcript and the trailer
            when the run ends (a failed run leaves the partial file, the crash marker). Every
            run's session is in the catalog anyway (``rath.session.persistence``).
        persist_path: Write that file here instead (implies ``persist``).
        sandbox_handle_id: The sandbox identity the file's header records (OpenRath: the
            ``rath.backend.persistence`` id to reattach an OpenSandbox sandbox by); Rath's
            sandbox id of the placement by default. Only written with ``persist``/
            ``persist_path``; ignored otherwise, as in OpenRath.

    Returns:
        The output session: the user rows plus this run's rows, parents
        ``(user_session.id, agent_session.id)``.

    Raises:
        ConfigError: Invalid arguments (found before anything starts).
        PersistenceError: ``persist_path`` is taken by another session file (see
            :class:`~rath.session.persistence.SessionWriter`); nothing starts.
    """
    out = Session(
        id=new_id(),
        sandbox=user_session.sandbox,
        **stamped(
            parent_session_ids=(user_session.id, agent_session.id),
            lineage_kind=LineageKind.OP_SESSION_LOOP,
            lineage_operator="run_session_loop",
        ),
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
