"""The tool activity: run one tool call in the session's sandbox.

See docs/sandboxes.md, "Where the code is".
"""

from __future__ import annotations

import asyncio
import hashlib
import shutil
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from pydantic_core import to_json
from temporalio import activity
from temporalio.exceptions import ApplicationError

from rath.activities._boundary import activity_errors
from rath.activities._executor_tools import Dispatched, SandboxTool
from rath.activities._heartbeat import heartbeating
from rath.activities._sandbox_pool import SandboxPool
from rath.backend.persistence.leases import LeaseRegistry
from rath.backend.spec import BackendSandboxSpec
from rath.contracts.tools import (
    CLAIM_SANDBOX,
    CLOSE_SANDBOX,
    RUN_CUSTOM_TOOL,
    RUN_EXECUTOR_TOOL,
    RUN_TOOL,
    ClaimArgs,
    ClaimResult,
    CloseArgs,
    CustomToolArgs,
    ExecutorToolArgs,
    RunToolArgs,
    RunToolResult,
)
from rath.errors import SandboxError
from rath.llm.executors import EXECUTORS
from rath.llm.tool_args import parse_arguments
from rath.session.chunk import tool_feedback_chunk
from rath.session.placement import Placement
from rath.session.session import Session
from rath.store import ChunkStore
from rath.store.call_journal import CallJournal, CallMade, call_key
from rath.telemetry import annotate_tool
from rath.tools.base import FlowToolCall, run_tool_call
from rath.tools.bodies import dumps, error_body
from rath.tools.builtins import run_builtin
from rath.tools.context import ToolCallContext, calling
from rath.tools.registry import TOOLS, ToolRegistry
from rath.utils.text import preview

PREVIEW_CHARS = 160


class ToolActivities:
    """Tool activities, bound to a chunk store, the workspaces directory and the tool registry.

    Args:
        store: Where calls are read and results stored.
        workspaces: Where sandboxes without a workspace of their own get one.
        registry: The user tools this worker runs (default: the process's).
        queue: This worker's own task queue (where its sandboxes' tool calls are routed).
        leases: The sandbox registry (who owns and who holds each sandbox).
        sandboxes: The open sandboxes kept between calls (default: a pool of its own).
    """

    def __init__(
        self,
        store: ChunkStore,
        workspaces: Path,
        registry: ToolRegistry = TOOLS,
        *,
        queue: str | None = None,
        leases: LeaseRegistry | None = None,
        sandboxes: SandboxPool | None = None,
    ) -> None:
        self._store = store
        self._journal = CallJournal(store.objects)
        self._workspaces = workspaces
        self._registry = registry
        self._queue = queue
        self._leases = leases
        self.sandboxes = sandboxes or SandboxPool()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Wrap a worker's run; closes the open sandboxes when it stops (a ``run_context``)."""
        try:
            yield
        finally:
            await self.sandboxes.aclose()

    @CLAIM_SANDBOX.implement
    async def claim(self, args: ClaimArgs) -> ClaimResult:
        """Open the session's sandbox on this worker, which owns it from now on.

        A sandbox the registry already knows keeps its first owner (a worker restarted under
        the same id takes that queue back). Fails at once (not retried) when the backend
        cannot run here.
        """
        queue = self._queue or activity.info().task_queue
        spec = self._spec(args.placement)
        with activity_errors():
            if self._leases is not None:
                lease = await asyncio.to_thread(
                    self._leases.set_owner,
                    args.placement.sandbox_id,
                    spec.backend,
                    queue,
                    str(spec.working_dir),
                    args.placement.spec.working_dir is None,
                )
                if lease.owner != queue and lease.owner is not None:
                    return ClaimResult(owner=lease.owner)
            async with self.sandboxes.use(_key(args.placement, spec), spec):
                pass  # opened here, and kept for the session's first tool call
        return ClaimResult(owner=queue)

    @CLOSE_SANDBOX.implement
    async def close(self, args: CloseArgs) -> bool:
        """Close a sandbox no session holds: delete the workspace Rath allocated for it.

        Only a directory under this worker's workspaces dir is ever deleted; a workspace the
        user named is left alone. Returns whether something was deleted.
        """
        lease = args.lease
        await self.sandboxes.close(lease.sandbox_id.hex)
        if not lease.allocated or lease.workspace is None:
            return False
        workspace = Path(lease.workspace).resolve()
        if workspace.parent != self._workspaces.resolve() or not workspace.is_dir():
            return False
        await asyncio.to_thread(shutil.rmtree, workspace, ignore_errors=True)
        return True

    def _spec(self, placement: Placement) -> BackendSandboxSpec:
        """The placement's spec, with its allocated workspace when it names none."""
        return placement.resolved_spec(self._workspaces)

    @RUN_TOOL.implement
    async def run(self, args: RunToolArgs) -> RunToolResult:
        """Run one built-in tool call and store its TOOL_RESULT row."""
        key = _idempotency_key(args.origin_run_id)
        call, arguments, error = await self._call(args.assistant, args.call_index)
        name = call["function"]["name"]
        annotate_tool(name)
        if arguments is None:
            return await self._invalid(call["id"], name, error)
        body, ok = await self._builtin(args.placement, name, arguments, key)
        return await self._stored(call["id"], name, body, ok=ok)

    async def _call(
        self, assistant: str, index: int
    ) -> tuple[dict[str, Any], dict[str, Any] | None, str | None]:
        """Call ``index`` of the stored assistant row: the wire dict and its parsed arguments."""
        with activity_errors():
            row = await self._store.run_io(self._store.get_row, assistant)
            call: dict[str, Any] = (row.payload.get("tool_calls") or [])[index]
            arguments, error = parse_arguments(call["function"]["arguments"])
        return call, arguments, error

    async def _invalid(self, call_id: str, tool_name: str, error: str | None) -> RunToolResult:
        """The stored result of a call whose arguments do not parse."""
        body = error_body("invalid_tool_arguments", error or "invalid arguments")
        return await self._stored(call_id, tool_name, body, ok=False)

    async def _builtin(
        self, placement: Placement, name: str, arguments: Mapping[str, Any], key: str
    ) -> tuple[str, bool]:
        """Run a built-in in the placement's pooled sandbox: its body and whether it worked."""
        # Inside the boundary: a backend that is unknown or cannot run on this worker
        # (SandboxUnavailableError, a ConfigError) fails the call once, without retries.
        with activity_errors():
            spec = self._spec(placement)
            pooled = _key(placement, spec)
            async with heartbeating(), self.sandboxes.use(pooled, spec) as box:
                outcome = await run_builtin(box, name, dict(arguments), idempotency_key=key)
        if isinstance(outcome.error, SandboxError):  # broken: the next call reopens
            self.sandboxes.discard(pooled, box)
        return outcome.body, outcome.ok

    @RUN_CUSTOM_TOOL.implement
    async def run_custom(self, args: CustomToolArgs) -> RunToolResult:
        """Run one call of a user tool registered on this worker and store its result row.

        At most once, through the call journal (see :meth:`_journaled`).
        """
        info = activity.info()
        tool = self._registry.get(args.tool_name)
        if tool is None:
            registered = ", ".join(self._registry.names()) or "none"
            raise ApplicationError(
                f"tool {args.tool_name!r} (agent {args.agent_name!r}) is not registered on the "
                f"worker of task queue {info.task_queue!r} (registered: {registered}); start "
                f"the worker with `rath worker --tools package.module:{args.tool_name}`",
                type="ToolNotRegistered",
                non_retryable=True,
            )
        call, arguments, error = await self._call(args.assistant, args.call_index)
        if arguments is None:
            return await self._invalid(call["id"], args.tool_name, error)
        session = Session(table=args.transcript, sandbox=args.placement)
        return await self._journaled(args, call["id"], tool, session, arguments)

    @RUN_EXECUTOR_TOOL.implement
    async def run_executor(self, args: ExecutorToolArgs) -> RunToolResult:
        """Run one call through the run's loop executor (``executor.dispatch_tool``).

        The executor lives in this process (the one that started the run); the tool it is
        given is the registered user tool, or the built-in running in the session's sandbox.
        At most once, like ``rath.tools.custom`` (a built-in is retry-safe, as in
        ``rath.tools.run``).
        """
        key = _idempotency_key(args.origin_run_id)
        with activity_errors():
            executor = EXECUTORS.get(args.executor.id)
        call, arguments, error = await self._call(args.assistant, args.call_index)
        if arguments is None:
            return await self._invalid(call["id"], args.tool_name, error)
        tool = self._registry.get(args.tool_name)
        if tool is None:
            placement = args.placement
            if placement is None:
                raise ApplicationError(
                    f"tool {args.tool_name!r} needs a sandbox", type="ConfigError"
                )

            async def run(arguments: Mapping[str, Any]) -> str:
                body, _ = await self._builtin(placement, args.tool_name, arguments, key)
                return body

            tool = SandboxTool(args.tool_name, run, asyncio.get_running_loop())
        session = Session(table=args.transcript, sandbox=args.placement)
        dispatched = Dispatched(executor, tool)
        return await self._journaled(args, call["id"], dispatched, session, arguments)

    async def _journaled(
        self,
        args: CustomToolArgs,
        call_id: str,
        tool: FlowToolCall,
        session: Session,
        arguments: Mapping[str, Any],
    ) -> RunToolResult:
        """Run one user tool call at most once (the call journal), and store its result row.

        An attempt after one that finished returns that result; after one that died mid-call
        it reports ``tool_outcome_unknown`` instead of running again, unless the tool is
        retry-safe. A reset run's calls are keyed by its original run, so a call the original
        made is not made again (:func:`_idempotency_key`).
        """
        info = activity.info()
        key, attempt = _idempotency_key(args.origin_run_id), info.attempt
        made = CallMade(call=f"{args.assistant}#{args.call_index}", run=_run_of(info))
        with activity_errors():
            earlier = await asyncio.to_thread(self._journal.begin, key, attempt, made)
        if earlier is not None and earlier.state == "done" and earlier.result is not None:
            return RunToolResult(
                result=earlier.result, ok=bool(earlier.ok), preview=earlier.preview or ""
            )
        if earlier is not None and not tool.retry_safe:
            body, ok = _outcome_unknown(tool, key, earlier.attempt), False
        else:
            with calling(ToolCallContext(key, attempt, tool.name)):
                async with heartbeating():
                    body, ok = await run_tool_call(tool, session, arguments)
        done = await self._stored(call_id, tool.name, body, ok=ok)
        with activity_errors():
            await asyncio.to_thread(
                self._journal.finish,
                key,
                attempt,
                result=done.result,
                ok=ok,
                preview=done.preview,
                made=made,
            )
        return done

    async def _stored(self, call_id: str, tool_name: str, body: str, *, ok: bool) -> RunToolResult:
        """Store a call's TOOL_RESULT row; what travels back to the workflow."""
        row = tool_feedback_chunk(call_id, tool_name, body).stamped(time.time())
        with activity_errors():
            digest = await self._store.run_io(self._store.put_row, row)
        return RunToolResult(result=digest, ok=ok, preview=preview(body, PREVIEW_CHARS))


def _outcome_unknown(tool: FlowToolCall, key: str, attempt: int) -> str:
    """The body the model gets for a call whose earlier attempt died mid-call."""
    message = (
        f"the worker running tool {tool.name!r} stopped during attempt {attempt}, after the "
        "tool started; whether its effect happened is unknown, so it was not run again. Check "
        "before calling it again (a tool that is safe to repeat declares retry_safe=True)"
    )
    return dumps(
        {
            "ok": False,
            "error_kind": "tool_outcome_unknown",
            "message": message,
            "idempotency_key": key,
        }
    )


def _idempotency_key(origin_run_id: str | None) -> str:
    """The running call's idempotency key: workflow id, run id and activity id.

    The run id is ``origin_run_id`` when the workflow passed one: a reset run names its
    original (whose history, activity ids included, it replays up to the reset point), so a
    call keeps its key across a reset.
    """
    info = activity.info()
    run_id = origin_run_id or info.workflow_run_id or ""
    return call_key(info.workflow_id or "", run_id, info.activity_id)


def _run_of(info: activity.Info) -> str:
    """``<workflow id>/<run id>`` of the run making the call (what keeps its record alive)."""
    return f"{info.workflow_id or ''}/{info.workflow_run_id or ''}"


def _key(placement: Placement, spec: BackendSandboxSpec) -> str:
    """The pool key of a placement's sandbox: its id, then its spec (which may differ)."""
    digest = hashlib.sha256(to_json(spec)).hexdigest()[:16]
    return f"{placement.sandbox_id.hex}/{digest}"
