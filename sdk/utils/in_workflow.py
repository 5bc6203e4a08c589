"""Whether code runs inside a Temporal workflow, asked without loading the SDK."""

from __future__ import annotations

import sys
import uuid


def in_workflow() -> bool:
    """True inside a workflow's event loop (like ``temporalio.workflow.in_workflow``)."""
    module = sys.modules.get("temporalio.workflow")
    return module is not None and bool(module.in_workflow())


def workflow_uuid4() -> uuid.UUID:
    """``temporalio.workflow.uuid4()`` (replay-safe); call only when :func:`in_workflow`."""
    value: uuid.UUID = sys.modules["temporalio.workflow"].uuid4()
    return value
