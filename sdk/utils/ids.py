"""Identifiers that are safe both in plain Python and inside Temporal workflow code."""

from __future__ import annotations

import uuid

from rath.utils.in_workflow import in_workflow, workflow_uuid4


def new_id() -> uuid.UUID:
    """Return a fresh UUID: ``workflow.uuid4()`` inside workflow code (replay-safe), else uuid4."""
    if in_workflow():
        return workflow_uuid4()
    return uuid.uuid4()
