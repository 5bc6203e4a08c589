"""Whether code runs inside a Temporal workflow, asked without loading the SDK."""

from __future__ import annotations

import sys
import uuid


def in_workflow() -> bool:
    """True inside a workflow's event loop (like ``temporalio.workflow.in_workflow``).

    No workflow can run in a process that never imported ``temporalio.workflow``, so value
    modules ask here and a client that only builds sessions never loads the Temporal SDK.
    """
    module = sys.modules.get("temporalio.workflow")
    return module is not None and bool(module.in_workflow())


def workflow_uuid4() -> uuid.UUID:
    """``temporalio.workflow.uuid4()`` (replay-safe); call only when :func:`in_workflow`."""
    value: uuid.UUID = sys.modules["temporalio.workflow"].uuid4()
    return value
