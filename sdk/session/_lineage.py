"""Lineage: how a session came to be (OpenRath's ``LineageKind`` values, plus ``op_workflow``)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from uuid import UUID


class LineageKind(StrEnum):
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


@dataclass(frozen=True, slots=True)
class SessionLineage:
    """OpenRath's legacy lineage record of a loop or compress output (``Session.lineage``).

    Attributes:
        producer_user_session_id: The transcript the run continued.
        producer_system_session_id: The agent prompt session it ran with.
        operator: ``"run_session_loop"`` or ``"run_session_compress"``.
    """

    producer_user_session_id: UUID
    producer_system_session_id: UUID
    operator: str = "run_session_loop"
