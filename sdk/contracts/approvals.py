"""Tool-call approvals across Temporal: the ``rath.approve`` update. See docs/modules.md."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

APPROVE_UPDATE = "rath.approve"
"""The update that answers a waiting call: an :class:`ApprovalDecision`."""
PENDING_APPROVALS_QUERY = "pending_approvals"
"""The query listing the waiting calls: ``list[PendingApproval]``."""


class PendingApproval(BaseModel):
    """A tool call waiting for a person (the ``pending_approvals`` query lists these)."""

    model_config = ConfigDict(frozen=True)

    call_id: str
    tool: str
    arguments: str
    agent: str
    asked_at: datetime


class ApprovalDecision(BaseModel):
    """A person's answer to a pending call (the ``rath.approve`` update's input)."""

    model_config = ConfigDict(frozen=True)

    call_id: str
    approve: bool
    reason: str | None = None
