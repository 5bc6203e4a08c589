"""Identifiers that are safe both in plain Python and inside Temporal workflow code."""

from __future__ import annotations

import uuid

from temporalio import workflow


def new_id() -> uuid.UUID:
    """Return a fresh UUID: ``workflow.uuid4()`` inside workflow code (replay-safe), else uuid4."""
    if workflow.in_workflow():
        return workflow.uuid4()
    return uuid.uuid4()
