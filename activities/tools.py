"""The tool activity: run one tool call in the session's sandbox.

The workflow sends where the call is (the assistant row's digest and the call's index), not
its arguments: they are read back from the chunk store. The result row is stored and only its
digest and a short preview travel back. Tools are at-least-once (an activity may retry after a
worker crash); each call gets a stable idempotency key (workflow id, run id, activity id),
exported to commands as ``RATH_IDEMPOTENCY_KEY``. The built-in file tools are idempotent.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict
from temporalio import activity

from rath._text import preview
from rath.activities._boundary import activity_errors
from rath.activities._heartbeat import heartbeating
from rath.llm._wire import parse_arguments
from rath.sandbox import open_sandbox
from rath.session._chunks import tool_feedback_chunk
from rath.session._session import Placement
from rath.store import ChunkStore
from rath.tools.builtins import error_body, run_builtin

PREVIEW_CHARS = 160


class RunToolArgs(BaseModel):
    """Input of :meth:`ToolActivities.run`."""

    model_config = ConfigDict(frozen=True)

    agent_name: str
    placement: Placement
    assistant: str
    call_index: int


class RunToolResult(BaseModel):
    """Output of :meth:`ToolActivities.run`: the stored tool-result row, by digest."""

    model_config = ConfigDict(frozen=True)

    result: str
    ok: bool
    preview: str


class ToolActivities:
    """Tool activities, bound to a chunk store and the workspaces directory at worker start."""

    def __init__(self, store: ChunkStore, workspaces: Path) -> None:
        self._store = store
        self._workspaces = workspaces

    @activity.defn(name="rath.tools.run")
    async def run(self, args: RunToolArgs) -> RunToolResult:
        """Run one built-in tool call and store its TOOL_RESULT row."""
        info = activity.info()
        key = f"{info.workflow_id}/{info.workflow_run_id}/{info.activity_id}"
        with activity_errors():
            assistant = await asyncio.to_thread(self._store.get_row, args.assistant)
            call = (assistant.payload.get("tool_calls") or [])[args.call_index]
            name = call["function"]["name"]
            arguments, error = parse_arguments(call["function"]["arguments"])
            spec = args.placement.spec
            if spec.working_dir is None:
                workspace = self._workspaces / args.placement.sandbox_id.hex
                spec = spec.model_copy(update={"working_dir": str(workspace)})
        if arguments is None:
            body, ok = error_body("invalid_tool_arguments", error or "invalid arguments"), False
        else:
            async with heartbeating(), open_sandbox(spec) as sandbox:
                outcome = await run_builtin(sandbox, name, arguments, idempotency_key=key)
            body, ok = outcome.body, outcome.ok
        row = tool_feedback_chunk(call["id"], name, body).stamped(time.time())
        return RunToolResult(
            result=await asyncio.to_thread(self._store.put_row, row),
            ok=ok,
            preview=preview(body, PREVIEW_CHARS),
        )
