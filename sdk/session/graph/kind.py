"""Lineage kinds: how a session came to be (OpenRath's values, plus ``op_workflow``)."""

from __future__ import annotations

from enum import Enum

from rath.errors import LineageConsistencyError

__all__ = ["LineageConsistencyError", "LineageKind"]


class LineageKind(str, Enum):  # noqa: UP042 - prints LineageKind.X, as OpenRath's
    """The operation that produced a session."""

    UNKNOWN = "unknown"
    LEAF_USER = "leaf_user"
    LEAF_SYSTEM = "leaf_system"
    OP_CREATE = "op_create"
    OP_SESSION_LOOP = "op_session_loop"
    OP_FORK = "op_fork"
    OP_DETACH = "op_detach"
    OP_MERGE = "op_merge"
    OP_SESSION_COMPRESS = "op_session_compress"
    #: Rath's addition: the output of a durable ``Workflow.forward`` run. Its usage is the
    #: whole agent tree's, rolled up.
    OP_WORKFLOW = "op_workflow"
