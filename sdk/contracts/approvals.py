"""Tool-call approvals across Temporal: the ``rath.approve`` update. See docs/modules.md."""

from __future__ import annotations

from datetime import datetime

from rath.utils.frozen import Frozen

APPROVE_UPDATE = "rath.approve"
"""The update that answers a waiting call: an :class:`ApprovalDecision`."""
PENDING_APPROVALS_QUERY = "pending_approvals"
"""The query listing the waiting calls: ``list[PendingApproval]``."""


class PendingApproval(Frozen):
    """A tool call waiting for a person (the ``pending_approvals`` query lists these)."""

    call_id: str
    tool: str
    arguments: str
    agent: str
    asked_at: datetime


class ApprovalDecision(Frozen):
    """A person's answer to a pending call (the ``rath.approve`` update's input)."""

    call_id: str
    approve: bool
    reason: str | None = None
