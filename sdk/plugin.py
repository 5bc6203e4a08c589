"""``RathPlugin``: all of Rath's Temporal wiring, for clients and workers. See docs/modules.md."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.plugin import SimplePlugin
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from rath.activities.llm import LLMActivities
from rath.activities.mcp import McpActivities
from rath.activities.memory import MemoryActivities
from rath.activities.runs import stop_old_children
from rath.activities.session import SessionActivities
from rath.activities.tools import ToolActivities
from rath.backend.persistence.leases import LeaseRegistry
from rath.errors import UserError
from rath.llm.credentials import VAULT, CredentialVault
from rath.memory import local_store_factory, memory_dir
from rath.settings import Settings
from rath.store import ChunkStore, store_for
from rath.telemetry import TelemetryInterceptor, TracePropagation
from rath.workflows.close_sandbox import CloseSandboxWorkflow
from rath.workflows.compress import CompressWorkflow
from rath.workflows.forward import ForwardWorkflow
from rath.workflows.session_loop import SessionLoopWorkflow

PASSTHROUGH_MODULES = (
    "rath",
    "pydantic",
    "pydantic_core",
    "annotated_types",
    "openai",
    "httpx",
    "opentelemetry",
)


def workflow_runner() -> SandboxedWorkflowRunner:
    """The sandboxed runner with Rath's modules passed through (imported once, not per run)."""
    return SandboxedWorkflowRunner(
        restrictions=SandboxRestrictions.default.with_passthrough_modules(*PASSTHROUGH_MODULES)
    )


class RathPlugin(SimplePlugin):
    """Rath's Temporal plugin (converter, workflows, activities, sandbox, failure types)."""

    def __init__(
        self,
        *,
        settings: Settings | None = None,
        store: ChunkStore | None = None,
        vault: CredentialVault = VAULT,
    ) -> None:
        settings = settings or Settings.from_env()
        store = store or store_for(settings)
        llm = LLMActivities(store, vault)
        tools = ToolActivities(
            store,
            settings.workspaces_dir,
            queue=settings.affinity_queue,
            leases=LeaseRegistry(settings.sandboxes_dir),
        )
        sessions = SessionActivities(store)
        memory = MemoryActivities(
            local_store_factory(directory=memory_dir(settings)), chunks=store, llm=llm
        )
        mcp = McpActivities(store)
        super().__init__(
            "rath.RathPlugin",
            data_converter=pydantic_data_converter,
            activities=[
                llm.complete,
                llm.compress,
                llm.describe_image,
                llm.embed,
                tools.run,
                tools.run_custom,
                tools.run_executor,
                tools.claim,
                tools.close,
                mcp.list_tools,
                mcp.call_tool,
                sessions.read,
                sessions.interleave,
                sessions.put_tools,
                sessions.record,
                memory.remember,
                memory.recall,
                memory.inject,
                memory.commit,
                stop_old_children,
            ],
            workflows=[
                SessionLoopWorkflow,
                ForwardWorkflow,
                CompressWorkflow,
                CloseSandboxWorkflow,
            ],
            workflow_runner=workflow_runner(),
            workflow_failure_exception_types=[UserError],
            # First the context propagation, then the spans made inside that context.
            interceptors=(
                [TracePropagation(), TelemetryInterceptor()] if settings.telemetry else None
            ),
            run_context=SharedRun(llm, mcp, tools).running,
        )


class SharedRun:
    """The run of every worker built with one plugin, which share its activities' pools.

    A process's workers (shared queue, own queue, one per code queue) hold the same chat
    clients, MCP sessions and sandboxes, and do not stop at the same moment: what the owners
    pool is closed when the last of them stops, never under a call another one still runs.
    """

    def __init__(self, *owners: LLMActivities | McpActivities | ToolActivities) -> None:
        self._owners = owners
        self._workers = 0
        self._stack: AsyncExitStack | None = None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """One worker's run (a plugin ``run_context``); the first opens, the last closes."""
        self._workers += 1
        try:
            if self._stack is None:
                # Published before the awaits: a worker starting meanwhile must not open another.
                self._stack = stack = AsyncExitStack()
                for owner in self._owners:
                    await stack.enter_async_context(owner.running())
            yield
        finally:
            self._workers -= 1
            if self._workers == 0 and self._stack is not None:
                stack, self._stack = self._stack, None
                await stack.aclose()
