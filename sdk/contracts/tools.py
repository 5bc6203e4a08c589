"""The tool and sandbox activities' contracts: run a tool call, open and close a sandbox.

A call travels by reference (the assistant row's digest and the call's index); the result row
is stored and only its digest and a preview come back.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from rath.backend.lease import Lease
from rath.contracts._contract import ActivityContract
from rath.contracts.llm import ExecutorRef
from rath.session.placement import Placement
from rath.session.table_ref import TableRef
from rath.utils.frozen import Frozen


def function_schema(name: str, description: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    """The OpenAI wire tool dict (a deep copy of ``parameters``, safe to mutate)."""
    function = {"name": name, "description": description, "parameters": dict(parameters)}
    return {"type": "function", "function": copy.deepcopy(function)}


class RunToolArgs(Frozen):
    """Input of ``rath.tools.run``: a built-in tool call, in the session's sandbox."""

    agent_name: str
    placement: Placement
    assistant: str
    call_index: int
    origin_run_id: str | None = None
    """The run whose history this run started from (its own unless reset): tool calls are
    keyed by it, so a reset run's calls keep the idempotency keys of its original's."""


class RunToolResult(Frozen):
    """Output of every tool call (built-in, custom, MCP): the stored tool-result row."""

    result: str
    ok: bool
    preview: str


class CustomToolArgs(Frozen):
    """Input of ``rath.tools.custom``: the call by reference, and its session."""

    agent_name: str
    tool_name: str
    assistant: str
    call_index: int
    transcript: TableRef
    placement: Placement | None = None
    origin_run_id: str | None = None
    """The run whose history this run started from (its own unless reset): tool calls are
    keyed by it, so a reset run's calls keep the idempotency keys of its original's."""


class ExecutorToolArgs(CustomToolArgs):
    """Input of ``rath.tools.executor``: a call the run's loop executor dispatches."""

    executor: ExecutorRef


class ClaimArgs(Frozen):
    """Input of ``rath.sandbox.claim``."""

    placement: Placement


class ClaimResult(Frozen):
    """The task queue of the worker that now owns the sandbox."""

    owner: str


class CloseArgs(Frozen):
    """Input of ``rath.sandbox.close``: the lease of a sandbox no session holds."""

    lease: Lease


RUN_TOOL = ActivityContract("rath.tools.run", RunToolArgs, RunToolResult)
"""Run one built-in tool call in the session's sandbox."""
RUN_CUSTOM_TOOL = ActivityContract("rath.tools.custom", CustomToolArgs, RunToolResult)
"""Run one call of a user tool registered on the worker."""
RUN_EXECUTOR_TOOL = ActivityContract("rath.tools.executor", ExecutorToolArgs, RunToolResult)
"""Run one tool call through the loop executor of the process that started the run."""
CLAIM_SANDBOX = ActivityContract("rath.sandbox.claim", ClaimArgs, ClaimResult)
"""Open the session's sandbox on the worker that takes the task; it owns the sandbox from then."""
CLOSE_SANDBOX = ActivityContract("rath.sandbox.close", CloseArgs, bool)
"""Close a sandbox no session holds (on its owner); whether a workspace was deleted."""
