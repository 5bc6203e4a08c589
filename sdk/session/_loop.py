"""``run_session_loop``: one agent pass over a user session, as a durable run.

Called from plain Python it starts a :class:`~rath.workflows.session_loop.SessionLoopWorkflow`
through the background runtime and returns a lazy session at once; reading it waits. Lazy
inputs do not block the call: the run starts when they are ready, so ``agent2(agent1(s))``
returns immediately too. Called from a durable ``forward`` (workflow code) it schedules the
same workflow as a child, as a task of the parent, and returns a lazy session just the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from temporalio import workflow

from rath.budget import Budget, with_total_tokens
from rath.contracts import AgentMemory, LoopOptions
from rath.errors import ConfigError
from rath.llm.chat_response import RathLLMStreamDelta
from rath.llm.provider import Provider
from rath.llm.registry import cannot_stream
from rath.runtime.launch import start_loop
from rath.session._calls import LoopCall, slug
from rath.session._graph_mode import stamped
from rath.session.deferred import Deferred
from rath.session.graph.kind import LineageKind
from rath.session.manager import register_run
from rath.session.persistence._finish import persist_when_done
from rath.session.persistence.writer import SessionWriter
from rath.session.session import Session
from rath.tools._agent_tools import agent_tool_set
from rath.utils.ids import new_id
from rath.workflows._scope import current_scope

if TYPE_CHECKING:
    from rath.tools import FlowToolCall


def run_session_loop(
    user_session: Session,
    agent_session: Session,
    *,
    agent_provider: Provider,
    tools: list[FlowToolCall] | Sequence[Any] | None = None,
    max_tool_rounds: int | None = None,
    agent_name: str = "agent",
    options: Any = None,
    compress_at_tokens: int | None = None,
    memory: AgentMemory | None = None,
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
            with a budget, the tree's are enforced too); ``agent_provider.budget_total_tokens``
            is ``Budget(total_tokens=...)`` unless this sets its own. Exceeding one ends the
            run with :class:`~rath.errors.BudgetExceededError`, which carries the transcript
            so far.
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
    tool_set = agent_tool_set(tools, tool_policy)
    base_options = options or LoopOptions()
    if max_tool_rounds is None:
        max_tool_rounds = base_options.max_tool_rounds
    if max_tool_rounds < 1:
        raise ConfigError(f"max_tool_rounds must be at least 1, got {max_tool_rounds}")
    if compress_at_tokens is not None and compress_at_tokens < 1:
        raise ConfigError(
            f"compress_at_tokens must be a positive token count or None, got {compress_at_tokens}"
        )
    update: dict[str, Any] = {"max_tool_rounds": max_tool_rounds}
    if compress_at_tokens is not None:
        update["compress_at_tokens"] = compress_at_tokens
    loop_options = base_options.model_copy(update=update)
    out = Session(
        id=new_id(),
        sandbox=user_session.sandbox,
        **stamped(
            parent_session_ids=(user_session.id, agent_session.id),
            lineage_kind=LineageKind.OP_SESSION_LOOP,
            lineage_operator="run_session_loop",
        ),
    )
    call = LoopCall(
        user=user_session,
        agent=agent_session,
        provider=agent_provider,
        name=slug(agent_name),
        options=loop_options,
        memory=memory,
        budget=with_total_tokens(budget, agent_provider.budget_total_tokens),
        tools=tool_set,
        out=out,
        on_event=on_event,
        executor=executor,
    )
    if executor is not None and on_event is not None:
        out.attach_pending(Deferred((), _refuse_streaming_executor))
        return out
    refusal = cannot_stream(agent_provider) if on_event is not None else None
    if refusal is not None:
        out.attach_pending(Deferred((), partial(_raise, refusal)))
        return out
    if workflow.in_workflow():
        if executor is not None:
            raise ConfigError(
                "executor= calls an object of the calling process, which a durable forward "
                "cannot reach: give the agent a provider (or rath.llm.register_chat_client "
                "a kind the workers know)"
            )
        refuse_persist_in_workflow(persist, persist_path)
        current_scope().start_loop(call)
        return out
    writer = writer_for(out, persist, persist_path, sandbox_handle_id)
    start_loop(call)
    register_run(user_session, agent_session, out)
    if writer is not None:
        persist_when_done(out, writer)
    if not lazy:
        out.synchronize()
    return out


def _refuse_streaming_executor() -> Session:
    # Raised when the output is read, as OpenRath did (its tests read it to get the error).
    raise ConfigError(
        "on_event with a custom executor is not supported: stream with "
        "rath.session.loop.StreamingExecutor(client, on_event) as the executor instead"
    )


def _raise(error: Exception) -> Session:
    raise error


def refuse_persist_in_workflow(persist: bool, persist_path: Path | None) -> None:
    """Inside a durable forward, ``persist=`` cannot write a client file: say so.

    Raises:
        ConfigError: ``persist`` or ``persist_path`` was given.
    """
    if persist or persist_path:
        raise ConfigError(
            "persist= writes a file on the client: inside a durable forward every agent "
            "run is in the session catalog already (rath.session.persistence.load_session)"
        )


def writer_for(
    out: Session, persist: bool, persist_path: Path | None, sandbox_handle_id: str | None
) -> SessionWriter | None:
    """The session file writer of ``out`` (its header written now), if asked for."""
    if not (persist or persist_path):
        return None
    return SessionWriter(out, sandbox_handle_id=sandbox_handle_id, path=persist_path)
