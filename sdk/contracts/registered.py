"""Every activity and workflow a Rath worker registers (the contracts of each area)."""

from __future__ import annotations

from typing import Any

from rath.contracts._contract import ActivityContract, WorkflowContract
from rath.contracts.children import STOP_OLD_CHILDREN
from rath.contracts.llm import COMPLETE, COMPRESS, DESCRIBE_IMAGE, EMBED
from rath.contracts.mcp import CALL_MCP_TOOL, LIST_MCP_TOOLS
from rath.contracts.memory import COMMIT_MEMORIES, INJECT_MEMORIES, RECALL_MEMORIES, REMEMBER_MEMORY
from rath.contracts.runs import CLOSE_SANDBOX_RUN, COMPRESS_RUN, FORWARD, SESSION_LOOP
from rath.contracts.session import INTERLEAVE, PUT_TOOLS, READ_ROWS, RECORD_SESSION
from rath.contracts.tools import (
    CLAIM_SANDBOX,
    CLOSE_SANDBOX,
    RUN_CUSTOM_TOOL,
    RUN_EXECUTOR_TOOL,
    RUN_TOOL,
)

ACTIVITIES: tuple[ActivityContract[Any, Any], ...] = (
    COMPLETE,
    COMPRESS,
    DESCRIBE_IMAGE,
    EMBED,
    READ_ROWS,
    INTERLEAVE,
    PUT_TOOLS,
    RECORD_SESSION,
    RUN_TOOL,
    RUN_CUSTOM_TOOL,
    RUN_EXECUTOR_TOOL,
    CLAIM_SANDBOX,
    CLOSE_SANDBOX,
    LIST_MCP_TOOLS,
    CALL_MCP_TOOL,
    REMEMBER_MEMORY,
    RECALL_MEMORIES,
    INJECT_MEMORIES,
    COMMIT_MEMORIES,
    STOP_OLD_CHILDREN,
)
"""Every activity a Rath worker registers."""

WORKFLOWS: tuple[WorkflowContract[Any, Any], ...] = (
    SESSION_LOOP,
    FORWARD,
    COMPRESS_RUN,
    CLOSE_SANDBOX_RUN,
)
"""Every workflow a Rath worker registers."""
