"""``Agent``: a ``Workflow`` with one system prompt and one provider, running the agent loop.

OpenRath's module path ``rath.flow.agent``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from rath.budget import Budget, with_total_tokens
from rath.contracts.memory import AgentMemory
from rath.errors import ConfigError
from rath.flow._agent_memory import AgentMemoryMethods, MemoryArg
from rath.flow.agent_param import AgentParam
from rath.flow.memory_inject import DefaultRecallInjection
from rath.flow.workflow import Workflow
from rath.llm.chat_response import RathLLMStreamDelta
from rath.llm.provider import Provider
from rath.session import run_session_loop
from rath.session.session import Session

__all__ = ["Agent", "MemoryArg"]


class Agent(AgentMemoryMethods, Workflow):
    """An LLM agent: ``agent(session)`` runs the durable agent loop and returns a lazy session.

    Args:
        system_prompt: The agent's instructions (its prompt session's single SYSTEM row).
        provider: Which model to call. Either this or ``model`` is required.
        tools: Custom tools (``FlowToolCall`` classes or instances, ``@rath.tools.tool``
            functions) and MCP servers' tools (``rath.tools.mcp``). The six built-ins are
            always offered to a session placed on a sandbox. A name clash raises
            ``ToolNameConflictError`` when the agent is called.
        model: A model name; builds ``Provider(model=model)``, or fills a provider's missing
            model.
        name: Names the agent in workflow ids and the Temporal UI. Defaults to the attribute
            name it is assigned to in a parent ``Workflow``, else ``"agent"``.
        max_tool_rounds: LLM calls per run before the loop stops (``loop.truncated``);
            ``None`` takes ``options.max_tool_rounds`` (default 64).
        options: A ``LoopOptions`` with activity timeouts and retries.
        compress_at_tokens: Opt-in automatic compression once a round's context reaches this
            many tokens (see :func:`~rath.session.run_session_loop`).
        memory: ``"local"`` (the store under the data dir, kept across runs),
            ``"local:<name>"``, a ``MemorySpec``, a memory store (the agent holds one
            reference until :meth:`close`), or OpenRath's forms: a config ``memory.providers``
            preset or a backend name, or a ``MemoryStoreSpec`` (on the default backend), each
            opening a plane store. Relevant memories are injected as marked SYSTEM rows before
            the first round of each run. Anything else is a ``TypeError``.
        memory_top_k: The most memories injected per run.
        memory_target: Recall only from this scope or URI prefix.
        memory_inject: OpenRath's ``DefaultRecallInjection(top_k, target_uri)``, the same as
            ``memory_top_k`` and ``memory_target``.
        commit_on_forward: After each run, extract durable facts from its transcript with
            this agent's model and store them (without ``memory`` nothing is committed).
        tool_policy: ``{pattern: "allow" | "deny" | "ask"}`` per tool name (first match
            wins, default allow). ``ask`` pauses the run until a person answers with
            ``rath.approve(run, call_id)`` / ``rath.deny(...)`` (or ``rath approve`` on the
            command line); no answer within the policy's timeout counts as a denial.
        budget: Limits for each run of this agent (a :class:`~rath.budget.Budget`).
            ``provider.budget_total_tokens`` is the same as ``Budget(total_tokens=...)``.
        on_event: Called with each :class:`~rath.llm.RathLLMStreamDelta` (text, tool-call
            pieces, finish reason, usage, each with its round and attempt) while the model
            writes, on a worker thread of Rath's background runtime; the output is ready
            only after every event was delivered. For runs started from plain Python (see
            :func:`~rath.session.run_session_loop` and ``rath.streaming``).

    Example:
        agent = flow.Agent("Use tools when helpful.", model="gpt-4o-mini")
        out = agent(Session.from_user_message("hi").to("local", spec="./work"))
        print(out)
    """

    _runs_itself = True
    _is_agent = True

    def __init__(
        self,
        system_prompt: str,
        provider: Provider | None = None,
        tools: Sequence[Any] | None = None,
        *,
        model: str | None = None,
        name: str | None = None,
        max_tool_rounds: int | None = None,
        options: Any = None,
        compress_at_tokens: int | None = None,
        memory: MemoryArg = None,
        memory_top_k: int = 4,
        memory_target: str | None = None,
        memory_inject: DefaultRecallInjection | None = None,
        commit_on_forward: bool = False,
        budget: Budget | None = None,
        tool_policy: Any = None,
        on_event: Callable[[RathLLMStreamDelta], None] | None = None,
    ) -> None:
        super().__init__()
        if provider is None and model is None:
            raise ConfigError(
                "Agent needs a provider or a model: Agent(prompt, model='gpt-4o-mini')"
            )
        if provider is None:
            provider = Provider(model=model)
        elif model is not None and provider.model is None:
            provider = dataclasses.replace(provider, model=model)
        self.tools = list(tools or ())
        self.max_tool_rounds = max_tool_rounds
        self.options = options
        self.compress_at_tokens = compress_at_tokens
        if memory_inject is not None:
            if not isinstance(memory_inject, DefaultRecallInjection):
                raise ConfigError(
                    f"memory_inject={type(memory_inject).__name__}(...): a durable agent "
                    "recalls on its worker, so only DefaultRecallInjection(top_k, target_uri) "
                    "is taken; call a policy of your own on the session before the agent"
                )
            memory_top_k, memory_target = memory_inject.top_k, memory_inject.target_uri
        held = self._bind_memory(memory)
        self.agent = AgentParam(Session.from_agent_prompt(system_prompt), provider, held)
        self.memory_top_k = memory_top_k
        self.memory_target = memory_target
        self.commit_on_forward = commit_on_forward
        self.budget = with_total_tokens(budget, provider.budget_total_tokens)
        self.tool_policy = tool_policy
        self.on_event = on_event
        self._name = name
        self._named_explicitly = name is not None
        self._executor_override: Any = None
        """OpenRath's test seam: a loop executor for this agent's runs (``executor=``)."""

    @property
    def name(self) -> str:
        """The agent's display name."""
        return self._name or "agent"

    def _on_registered(self, name: str) -> None:
        if not self._named_explicitly:
            self._name = name

    def forward(self, session: Session) -> Session:
        """Run the agent loop over ``session`` (returns at once; the result is lazy)."""
        return run_session_loop(
            session,
            self.agent.agent_session,
            agent_provider=self.agent.provider,
            tools=self.tools,
            max_tool_rounds=self.max_tool_rounds,
            agent_name=self.name,
            options=self.options,
            compress_at_tokens=self.compress_at_tokens,
            memory=self._agent_memory(),
            budget=self.budget,
            tool_policy=self.tool_policy,
            on_event=self.on_event,
            executor=self._executor_override,
        )

    def register_tool(self, tool: Any) -> None:
        """Offer ``tool`` on later calls; a tool of the same name already there is kept."""
        name = _tool_name(tool)
        if name is None or all(_tool_name(known) != name for known in self.tools):
            self.tools.append(tool)

    def unregister_tool(self, tool_name: str) -> None:
        """Stop offering the tool named ``tool_name`` (no-op when there is none)."""
        self.tools = [known for known in self.tools if _tool_name(known) != tool_name]

    def _agent_memory(self) -> AgentMemory | None:
        if self._memory_spec is None:
            return None
        return AgentMemory(
            spec=self._memory_spec,
            top_k=self.memory_top_k,
            target=self.memory_target,
            commit_on_forward=self.commit_on_forward,
        )

    def extra_repr(self) -> str:
        """``name='...'``, shown on the repr's first line."""
        return f"name={self.name!r}"


def _tool_name(tool: Any) -> str | None:
    """The name a tool is offered under (a ``FlowToolCall``'s or ``@tool``'s ``name``)."""
    name = getattr(tool, "name", None)
    return name if isinstance(name, str) else None
