"""The workflows' contracts: loop, forward, compression, sandbox close. See docs/modules.md."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from pydantic import SerializerFunctionWrapHandler, model_serializer

from rath.backend.lease import Lease
from rath.budget import Budget, Spent
from rath.contracts._contract import WorkflowContract
from rath.contracts.budget import BudgetGate
from rath.contracts.catalog import ToolCatalog, ToolSet
from rath.contracts.llm import CompressArgs, ExecutorRef
from rath.contracts.memory import AgentMemory
from rath.llm.chat_response import RathLLMTokenUsage
from rath.llm.provider import ProviderSpec
from rath.llm.stream import StreamOptions
from rath.session.placement import Placement
from rath.session.session import Session
from rath.session.table_ref import TableRef
from rath.utils.frozen import Frozen


class LoopOptions(Frozen):
    """How a session loop runs: round limit, activity timeouts and retries."""

    max_tool_rounds: int = 64
    llm_timeout_seconds: float = 600.0
    llm_heartbeat_seconds: float = 5.0
    llm_max_attempts: int = 6
    llm_retry_base_seconds: float = 1.0
    tool_timeout_seconds: float = 300.0
    tool_heartbeat_seconds: float = 5.0
    tool_max_attempts: int = 5
    sandbox_owner_wait_seconds: float = 600.0
    """How long a tool call waits for the worker that owns the session's sandbox to take it;
    then the run fails, naming that worker's queue (it is gone, or far behind)."""
    tool_worker_wait_seconds: float = 600.0
    """How long a user tool's call waits for a worker that registered the tool (only those
    poll its queue); then the run fails, naming the tool and how to start such a worker."""
    continue_as_new_after_rounds: int | None = None
    compress_at_tokens: int | None = None
    compress_instruction: str | None = None


class LoopCarry(Frozen):
    """State carried across continue-as-new (and exposed by the ``progress`` query)."""

    transcript: TableRef
    rounds: int = 0
    usage: RathLLMTokenUsage | None = None
    runs: int = 1
    compressions: int = 0
    tool_calls: int = 0
    catalog: ToolCatalog | None = None
    placement: Placement | None = None
    """The session's sandbox once its owner is known (the output carries it)."""

    def spent(self) -> Spent:
        """Tokens and tool calls used so far (what a budget is checked against)."""
        tokens = self.usage.total_tokens if self.usage is not None else 0
        return Spent(tokens=tokens, tool_calls=self.tool_calls)


CODE_VERSION = 2
"""The workflow code version new runs start with: a run started with it has every change that
``workflow.patched`` guarded before versions existed, so it records no patch markers (version
1 runs still record ``rath-commit-memory-archive-only``, version 2's first change)."""


class SessionLoopInput(Frozen):
    """Input of ``rath.SessionLoop``."""

    user: Session
    agent: Session
    agent_name: str
    provider: ProviderSpec
    output_id: UUID
    options: LoopOptions = LoopOptions()
    memory: AgentMemory | None = None
    budget: BudgetGate | None = None
    tools: ToolSet | None = None
    carry: LoopCarry | None = None
    stream: StreamOptions | None = None
    """Stream each round's answer to the run's workflow stream (the caller passed on_event)."""
    stream_state: dict[str, Any] | None = None
    """The run's workflow stream carried across continue-as-new: its ``WorkflowStreamState``
    as JSON (``rath.workflows._stream_handoff`` converts; kept as JSON so that contracts never
    load ``temporalio.client``, which ``temporalio.contrib.workflow_streams`` imports)."""
    executor: ExecutorRef | None = None
    """The caller's loop executor: model and tool calls go through it (``executor=``)."""
    code_version: int = 0
    """The workflow code's version the run was started with (:data:`CODE_VERSION` from
    clients of today); 0 in runs recorded before versions, which replay their patches."""


class LoopResult(Session):
    """What a finished ``rath.SessionLoop`` returns: the output session, readable at a glance."""

    last_reply: str | None = None
    rows: int | None = None

    @model_serializer(mode="wrap")
    def _readable_first(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # The Web UI shows the head of a result: the reply, the size and the usage go there.
        data: dict[str, Any] = handler(self)
        head = {key: data.pop(key) for key in ("last_reply", "rows", "usage") if key in data}
        return head | data


class CompressInput(Frozen):
    """Input of ``rath.Compress``: the activity's input and the output's eager shell."""

    args: CompressArgs
    output: Session


class ModuleSpec(Frozen):
    """A ``Workflow`` by reference: ``target`` (``"module:QualName"``) and its JSON arguments."""

    target: str
    init_args: list[Any] = []
    init_kwargs: dict[str, Any] = {}

    @property
    def class_name(self) -> str:
        """The class's short name, e.g. ``"Squad"``."""
        return self.target.rsplit(":", 1)[-1].rsplit(".", 1)[-1]


class ForwardInput(Frozen):
    """Input of ``rath.Forward``."""

    module: ModuleSpec
    session: Session
    output_id: UUID
    call_args: list[Any] = []
    call_kwargs: dict[str, Any] = {}
    search_attributes: bool = True
    demo_fallback: bool = False
    budget: Budget | None = None
    code_version: int = 0
    """The workflow code's version the run was started with (:data:`CODE_VERSION` from
    clients of today); 0 in runs recorded before versions, which replay their patches."""


SESSION_LOOP = WorkflowContract("rath.SessionLoop", SessionLoopInput, Session)
"""One agent pass over a user session: rounds of LLM calls and tool calls; the output session."""
FORWARD = WorkflowContract("rath.Forward", ForwardInput, Session)
"""A registered ``rath.flow.Workflow``'s ``forward``, as durable workflow code."""
COMPRESS_RUN = WorkflowContract("rath.Compress", CompressInput, Session)
"""One ``rath.llm.compress`` activity, for a compression a client started."""
CLOSE_SANDBOX_RUN = WorkflowContract("rath.CloseSandbox", Lease, bool)
"""Close a sandbox no session holds, on the worker that owns it."""
